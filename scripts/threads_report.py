#!/usr/bin/env python3
"""The narrow phase on one and two threads (ParallelCollisionDispatcher), as Markdown.

Two measurements, both from one build:
  - bench_scene_cd: a recorded pile (drop_piggies at 1.5 s, plates at 1 s) whose narrow phase runs
    again and again, rounds of 1 and 2 threads alternating, medians: the speed-up alone;
  - the scene runs of scripts/bench.sh in Shatter mode (its JSON summaries, one thread) beside the
    same runs with --threads 2 (the summaries it writes with a _t2 suffix): CD per step over a whole
    scene, and whether the two runs ended in the same state (they must: the dispatcher's results do
    not depend on the thread count).

    scripts/threads_report.py --build build --bench build/bench --scenes plates bricks ...
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path


def pile_rows(bench: Path) -> list[str]:
    done = subprocess.run([str(bench), "--benchmark_format=json"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"threads_report: {bench} exited {done.returncode}:\n{done.stderr[-2000:]}")
    rows = []
    for b in json.loads(done.stdout)["benchmarks"]:
        name = b["name"].split("/")[0].removeprefix("BM_")
        rows.append(f"| {name} | {b['bodies']:.0f} | {b['pairs']:.0f} | {b['contacts']:.0f} | {b['ms_1']:.2f} | "
                    f"{b['ms_2']:.2f} | {b['thread_speedup_2']:.2f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--bench", default="build/bench", help="scripts/bench.sh's results folder")
    parser.add_argument("--scenes", nargs="+", default=["piggy_bank", "bricks", "plates", "drop_piggies"])
    args = parser.parse_args()
    build = Path(args.build)
    print("| pile | bodies | pairs | contacts | ms, 1 thread | ms, 2 threads | speed-up |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(pile_rows(build / "tests" / "bench" / "bench_scene_cd")))
    print()
    print("| scene | CD avg, 1 thread (ms) | CD avg, 2 threads (ms) | ratio | same final state |")
    print("|---|---|---|---|---|")
    for scene in args.scenes:
        one, two = Path(args.bench) / f"{scene}_shatter.json", Path(args.bench) / f"{scene}_shatter_t2.json"
        if not one.exists() or not two.exists():
            print(f"| {scene} | — | — | — | (a run is missing) |")
            continue
        a, b = json.loads(one.read_text()), json.loads(two.read_text())
        cd1, cd2 = a["mean"]["collision_ms"], b["mean"]["collision_ms"]
        same = "yes" if a["state_hash"] == b["state_hash"] else "**no**"
        print(f"| {scene} | {cd1:.2f} | {cd2:.2f} | {cd1 / cd2:.2f} | {same} |")


if __name__ == "__main__":
    main()
