#!/usr/bin/env python3
"""Runs shatter_demo with a bad command line and checks that the command line rejects it
(tests/demo/demo_tests.cmake).

    check_demo_rejects.py --demo shatter_demo --expect TEXT [--expect TEXT ...] -- DEMO ARGS...

Passes when the demo exits with a non-zero status and every TEXT is in what it printed. The run gets no
display (DISPLAY and WAYLAND_DISPLAY removed): a value the command line wrongly accepts goes on to fail
on the window instead, without the expected text, so the test fails rather than opening a window.
"""
import argparse
import os
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", required=True)
    parser.add_argument("--expect", action="append", required=True, help="text the error must contain")
    parser.add_argument("demo_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    demo_args = [a for a in args.demo_args if a != "--"]

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    command = [args.demo] + demo_args
    print("running:", " ".join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    output = result.stdout + result.stderr
    sys.stdout.write(output)
    failures = []
    if result.returncode == 0:
        failures.append("shatter_demo exited with 0")
    for text in args.expect:
        if text not in output:
            failures.append(f"no {text!r} in the output")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
