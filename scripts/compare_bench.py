#!/usr/bin/env python3
"""Paired benchmark comparison of two builds on a shared, noisy machine.

Runs each benchmark program of a baseline build and of a candidate build alternately (A B A B ...),
ROUNDS times each, with --benchmark_format=json, and prints per benchmark and per measure (real time
and every counter) the median of each side and the median of the per-round ratios candidate/baseline.

    scripts/compare_bench.py BASE_BUILD NEW_BUILD [--rounds 5] [--bench bench_collision ...]
                             [--filter REGEX] [--json out.json]
"""
import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

DEFAULT_BENCHES = ["bench_sphere_tree", "bench_distance_field", "bench_collision", "bench_fracture"]


def run(program: Path, bench_filter: str | None) -> dict[str, dict[str, float]]:
    command = [str(program), "--benchmark_format=json"]
    if bench_filter:
        command.append(f"--benchmark_filter={bench_filter}")
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"compare_bench: {program} exited {done.returncode}:\n{done.stderr[-2000:]}")
    # Builds from before the benchmarks kept stdout clean printed text around the report: keep only
    # the report's lines (braces, brackets and indented lines) when the whole output does not parse.
    text = done.stdout
    try:
        json.loads(text)
    except json.JSONDecodeError:
        text = "\n".join(line for line in text.splitlines() if line[:1] in ("{", "}", "]", " ", '"'))
    try:
        report = json.loads(text)
    except json.JSONDecodeError as error:
        sys.exit(f"compare_bench: {program} printed no JSON report on stdout ({error})")
    measures: dict[str, dict[str, float]] = {}
    skip = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads", "iterations",
            "family_index", "per_family_instance_index", "time_unit", "aggregate_name", "label",
            "error_occurred", "error_message", "cpu_time"}
    for entry in report.get("benchmarks", []):
        values = {key: float(value) for key, value in entry.items()
                  if key not in skip and isinstance(value, (int, float))}
        measures[entry["name"]] = values
    return measures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bench", action="append")
    parser.add_argument("--filter")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    results = {}
    for bench in args.bench or DEFAULT_BENCHES:
        programs = [build / "tests" / "bench" / bench for build in (args.base, args.new)]
        for program in programs:
            if not program.exists():
                sys.exit(f"compare_bench: {program} does not exist")
        rounds: list[tuple[dict, dict]] = []
        for index in range(args.rounds):
            print(f"{bench}: round {index + 1}/{args.rounds}", file=sys.stderr)
            base = run(programs[0], args.filter)
            new = run(programs[1], args.filter)
            rounds.append((base, new))
        for name in rounds[0][0]:
            for measure in rounds[0][0][name]:
                pairs = [(b[name][measure], n[name][measure]) for b, n in rounds
                         if name in n and measure in b.get(name, {}) and measure in n[name]]
                if not pairs:
                    continue
                ratios = [n / b for b, n in pairs if b != 0]
                results[f"{bench}/{name}/{measure}"] = {
                    "base": statistics.median(b for b, _ in pairs),
                    "new": statistics.median(n for _, n in pairs),
                    "ratio": statistics.median(ratios) if ratios else None,
                }
        if args.json:  # after every program, so an interrupted run keeps what it measured
            args.json.write_text(json.dumps(results, indent=1))
    width = max(len(key) for key in results) if results else 10
    print(f"{'benchmark/measure':<{width}}  {'base':>12}  {'new':>12}  {'new/base':>8}")
    for key, value in results.items():
        ratio = "-" if value["ratio"] is None else f"{value['ratio']:.3f}"
        print(f"{key:<{width}}  {value['base']:>12.4g}  {value['new']:>12.4g}  {ratio:>8}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
