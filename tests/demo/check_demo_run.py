#!/usr/bin/env python3
"""Runs shatter_demo headless under xvfb-run and checks what it wrote (tests/demo/demo_tests.cmake).

    check_demo_run.py --xvfb-run xvfb-run --demo shatter_demo --out DIR [checks] -- DEMO ARGS...

Always checked: the demo exits 0, ran every frame, wrote a PNG whose pixel luminances vary (a blank or
single-colour image fails) and a stats file that is JSON; with --scene FILE.json, the stats name the scene
exactly as the file does (quotes, backslashes, control and non-ASCII characters included). Optional: --expect-more-fragments (the stats show more fragments at the end
than at the start), --expect-balls N (clicks dropped balls), --expect-mesh-error NAME (the error naming NAME is in the log file, the stats' error
list and the UI's error text, and the demo still ran all its frames).
"""
import argparse
import json
import math
import pathlib
import struct
import subprocess
import sys
import zlib


def read_png(path):
    """Decodes an 8-bit RGB or RGBA PNG (what stb_image_write produces) into rows of bytes."""
    data = pathlib.Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, chunks, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, color = header[:4]
    if depth != 8 or color not in (2, 6):
        raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour type {color})")
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def luminance_deviation(path):
    width, height, channels, rows = read_png(path)
    total = squares = 0.0
    count = 0
    for row in rows[::2]:  # every other row and pixel is plenty
        for x in range(0, width, 2):
            r, g, b = row[x * channels:x * channels + 3]
            y = 0.2126 * r + 0.7152 * g + 0.0722 * b
            total += y
            squares += y * y
            count += 1
    mean = total / count
    return width, height, math.sqrt(max(0.0, squares / count - mean * mean))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--xvfb-run", required=True)
    parser.add_argument("--demo", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--expect-more-fragments", action="store_true")
    parser.add_argument("--expect-mesh-error")
    parser.add_argument("--expect-balls", type=int, help="at least this many balls in the world at the end")
    parser.add_argument("demo_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    demo_args = [a for a in args.demo_args if a != "--"]

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    shot, stats_file, log_file = out / "screenshot.png", out / "stats.json", out / "log.txt"
    for f in (shot, stats_file, log_file):
        f.unlink(missing_ok=True)
    command = [args.xvfb_run, "-a", "-s", "-screen 0 1280x1024x24", args.demo, "--headless", "--width", "960",
               "--height", "540", "--screenshot", str(shot), "--stats", str(stats_file), "--log", str(log_file)]
    command += demo_args
    print("running:", " ".join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    sys.stdout.write(result.stdout)
    sys.stdout.write(result.stderr[-4000:])
    failures = []
    if result.returncode != 0:
        failures.append(f"shatter_demo exited with {result.returncode}")
    if not shot.exists() or not stats_file.exists():
        failures.append("no screenshot or stats file")
    else:
        width, height, deviation = luminance_deviation(shot)
        stats = json.loads(stats_file.read_text(encoding="utf-8"))  # strict: raw control characters fail
        print(f"screenshot {width}x{height}, luminance deviation {deviation:.1f}; stats: "
              f"{stats['initial_fragments']} -> {stats['final_fragments']} fragments, {stats['steps']} steps, "
              f"{stats['fracture_events']} fracture events, frame ms mean/median/max "
              f"{stats['frame_ms']['mean']:.1f}/{stats['frame_ms']['median']:.1f}/{stats['frame_ms']['max']:.1f}, "
              f"errors: {stats['errors']}")
        scene = demo_args[demo_args.index("--scene") + 1] if "--scene" in demo_args else ""
        if scene.endswith(".json"):
            name = json.loads(pathlib.Path(scene).read_text(encoding="utf-8"))["name"]
            for where, value in (("scene", stats["scene"]), ("run_summary.scene", stats["run_summary"]["scene"])):
                if value != name:
                    failures.append(f"the stats' {where} is {value!r}, the scene file's name is {name!r}")
        if deviation < 10:
            failures.append(f"the screenshot is blank (luminance deviation {deviation:.1f})")
        frames = int(demo_args[demo_args.index("--frames") + 1]) if "--frames" in demo_args else None
        for key in ("frame_ms", "simulation_ms", "draw_ms"):
            t = stats[key]
            if not (0 < t["median"] <= t["max"] and 0 < t["mean"] <= t["max"]):
                failures.append(f"the stats' {key} is not a positive mean/median/max: {t}")
        if frames is not None and stats["steps"] < frames:
            failures.append(f"only {stats['steps']} steps for {frames} frames: the demo stopped early")
        if args.expect_more_fragments and not stats["final_fragments"] > stats["initial_fragments"]:
            failures.append(f"no fracture: {stats['initial_fragments']} -> {stats['final_fragments']} fragments")
        if args.expect_balls is not None and stats["balls"] < args.expect_balls:
            failures.append(f"{stats['balls']} balls, expected at least {args.expect_balls}")
        if args.expect_mesh_error:
            name = args.expect_mesh_error
            log_text = log_file.read_text(encoding="utf-8", errors="replace") if log_file.exists() else ""
            if not any(name in e for e in stats["errors"]):
                failures.append(f"no error naming {name} in the stats")
            if not any(name in line and "error" in line for line in log_text.splitlines()):
                failures.append(f"no error naming {name} in the log file")
            if name not in stats["ui_error"]:
                failures.append(f"the UI does not show the error for {name}")
        elif stats["errors"]:
            failures.append(f"unexpected errors: {stats['errors']}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
