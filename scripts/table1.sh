#!/usr/bin/env bash
# Builds every procedural asset (assets/meshes/*.obj → build/assets/*.shatter), times the builds and
# prints their sizes beside TVCG Table 1 (scripts/table1.py).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/setup-deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} >/dev/null
cmake --build "$build" -j "$(nproc)" --target shatter_asset

mkdir -p "$build/assets"
summary="$build/assets/summary.jsonl"
: >"$summary"
total_start=$(date +%s%N)
for mesh in piggy_bank brick plate shelf ball; do
    start=$(date +%s%N)
    "$build/tools/shatter_asset" build "$root/assets/meshes/$mesh.obj" -o "$build/assets/$mesh.shatter" --force \
        | tail -n 1 >>"$summary"
    echo "$mesh built in $(( ($(date +%s%N) - start) / 1000000 )) ms"
done
echo "all assets built in $(( ($(date +%s%N) - total_start) / 1000000 )) ms"

python3 "$root/scripts/table1.py" "$summary"
