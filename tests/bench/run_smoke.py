#!/usr/bin/env python3
"""Runs one benchmark program in its smoke mode and checks that stdout holds its JSON report and nothing
else (tests/bench/CMakeLists.txt), so that `--benchmark_format=json > out.json` stays parseable: whatever
a benchmark has to say goes to stderr, into a counter or into the report's context.

    run_smoke.py PROGRAM [ARGS...]      (runs PROGRAM ARGS... --benchmark_format=json)
"""
import json
import subprocess
import sys


def main():
    command = sys.argv[1:] + ["--benchmark_format=json"]
    result = subprocess.run(command, stdout=subprocess.PIPE, text=True)  # stderr goes straight to the log
    if result.returncode != 0:
        print(f"FAIL: {command[0]} exited with {result.returncode}")
        return 1
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError as e:
        print(f"FAIL: stdout is not one JSON document ({e}); it begins:\n{result.stdout[:2000]}")
        return 1
    benchmarks = report.get("benchmarks") if isinstance(report, dict) else None
    if not benchmarks:
        print(f"FAIL: the report lists no benchmarks:\n{result.stdout[:2000]}")
        return 1
    print(f"{len(benchmarks)} benchmark runs; stdout is the JSON report alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
