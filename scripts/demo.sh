#!/usr/bin/env bash
# The README's main-job command: installs what is needed, builds shatter_demo and starts it. With no display
# ($DISPLAY empty) it runs the plates scene headless under xvfb-run instead, and writes a screenshot and a
# stats summary. Before either it prints the procedural assets' sizes beside TVCG Table 1 (table1.sh).
# Extra arguments go to shatter_demo (e.g. scripts/demo.sh --scene piggy_bank).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/setup-deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} >/dev/null
cmake --build "$build" -j "$(nproc)" --target shatter_demo
demo="$build/demo/app/shatter_demo"

# The procedural assets beside TVCG Table 1 (triangles, tets, points; build times) first.
BUILD_DIR="$build" "$root/scripts/table1.sh" | grep -v '^building:'
echo

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    exec "$demo" "$@"
fi

out="$build/demo_output"
mkdir -p "$out"
echo "demo.sh: no display; running the plates scene headless (xvfb-run, Mesa llvmpipe)"
xvfb-run -a -s "-screen 0 1920x1080x24" "$demo" --headless --scene plates --frames 60 --width 1600 --height 900 \
    --screenshot "$out/plates.png" --stats "$out/plates_summary.json" --log "$out/plates_log.txt" "$@"
echo
cat "$out/plates_summary.json"
echo "screenshot: $out/plates.png"
echo "summary:    $out/plates_summary.json"
echo "log:        $out/plates_log.txt"
