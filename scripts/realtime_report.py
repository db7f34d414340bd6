#!/usr/bin/env python3
"""What fracture costs the simulation thread when the scenes run as a game runs them.

Runs each scene through shatter_run --realtime (steps paced to simulated time, so fracture jobs get
the wall time of their latency, as in the demo) and prints a Markdown table per scene:
  - median step and the spike ratios max / median with and without collision detection;
  - the largest main-thread fracture cost of a step with an event, and of any step;
  - the share of the run's step time spent on fracture in steps without an event (impact evaluations
    that did not break: the bound, job submission, waiting for a late job);
  - events, evaluations (jobs), bound rejections and impacts held back on unready fragments.

    scripts/realtime_report.py [--build build] [--scenes plates piggy_bank ...] [--steps N]
                               [--workers 1] [--latency L] [--no-realtime]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def run_scene(run: Path, scene: str, args, out: Path) -> tuple[dict, list[dict]]:
    command = [str(run), scene, "--csv", str(out / f"{scene}.csv"), "--json", str(out / f"{scene}.json")]
    if not args.no_realtime:
        command.append("--realtime")
    if args.steps:
        command += ["--steps", str(args.steps)]
    if args.workers is not None:
        command += ["--workers", str(args.workers)]
    if args.latency is not None:
        command += ["--latency", str(args.latency)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"realtime_report: {' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    summary = json.loads((out / f"{scene}.json").read_text())
    with open(out / f"{scene}.csv", newline="") as f:
        rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    return summary, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--scenes", nargs="+", default=["piggy_bank", "bricks", "plates", "drop_piggies"])
    parser.add_argument("--steps", type=int, default=0, help="steps per scene (default: its duration)")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--latency", type=int)
    parser.add_argument("--no-realtime", action="store_true", help="run as fast as possible instead")
    args = parser.parse_args()
    run = Path(args.build) / "demo" / "run" / "shatter_run"
    if not run.exists():
        sys.exit(f"realtime_report: {run} not found (build the shatter_run target)")

    print(f"load average at start: {os.getloadavg()[0]:.1f}; realtime: {not args.no_realtime}\n")
    print("| scene | steps | median ms | max/median | (total − CD) max/median | max main ms, event steps | "
          "max main ms, any step | non-breaking main / run | events | jobs | bound rejections | unready |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for scene in args.scenes:
            summary, rows = run_scene(run, scene, args, Path(tmp))
            total = sum(r["total_ms"] for r in rows)
            event_main = [r["fracture_main_ms"] for r in rows if r["fracture_events"] > 0]
            quiet_main = sum(r["fracture_main_ms"] for r in rows if r["fracture_events"] == 0)
            print(f"| {scene} | {summary['steps']} | {summary['median_total_ms']:.2f} | "
                  f"{summary['max_over_median']:.1f} | {summary['max_without_collision_over_median']:.1f} | "
                  f"{max(event_main, default=0):.2f} | {summary['max']['fracture_main_ms']:.2f} | "
                  f"{100 * quiet_main / total if total else 0:.1f} % | {summary['fracture_events']} | "
                  f"{int(sum(r['fracture_evaluations'] for r in rows))} | "
                  f"{int(sum(r['bound_rejections'] for r in rows))} | "
                  f"{int(sum(r['unready_impacts'] for r in rows))} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
