#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz) with clang, ASan and UBSan, and runs each on its seed
# corpus (docs/fuzzing.md). CI runs every harness for a short time; for hours, raise --time or --runs.
#
#   scripts/fuzz.sh [--time SECONDS | --runs N] [--parallel P] [HARNESS...]
#
# Defaults: 60 s per harness, as many at once as there are cores, every harness. Each harness grows its
# working corpus in BUILD_DIR/corpus/NAME (kept between runs; the seeds in tests/fuzz/corpus are read
# only). A crash, leak, hang (an input taking over 10 s) or allocation over 2 GiB stops that harness,
# leaves the input in BUILD_DIR/artifacts/NAME/ and makes the script exit 1. Once the bug is fixed,
# copy the input to tests/fuzz/regressions/NAME/, where every test pass replays it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
all=(fuzz_mesh_ply fuzz_mesh_off fuzz_mesh_obj fuzz_mesh_stl fuzz_asset_cache fuzz_scene_loader fuzz_world_contacts)

limit=(-max_total_time=60)
parallel=$(nproc)
harnesses=()
while [ $# -gt 0 ]; do
    case "$1" in
        --time) limit=(-max_total_time="$2"); shift 2 ;;
        --runs) limit=(-runs="$2"); shift 2 ;;
        --parallel) parallel=$2; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        fuzz_*) harnesses+=("$1"); shift ;;
        *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")
for h in "${harnesses[@]}"; do
    [[ " ${all[*]} " == *" $h "* ]] || { echo "fuzz.sh: no harness '$h' (have: ${all[*]})" >&2; exit 2; }
done

"$root/scripts/setup-deps.sh"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSHATTER_FUZZ=ON \
    -DSHATTER_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${harnesses[@]}"

run() {
    local name=$1 corpus=$build/corpus/${1#fuzz_} artifacts=$build/artifacts/${1#fuzz_}
    mkdir -p "$corpus" "$artifacts"
    local log=$build/logs/$name.log
    mkdir -p "$(dirname "$log")"
    local status=0
    "$build/tests/fuzz/$name" "$corpus" "$root/tests/fuzz/corpus/${1#fuzz_}" "${limit[@]}" -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" \
        >"$log" 2>&1 || status=$?
    local runs seconds
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    seconds=$(sed -n 's/.*Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -1)
    if [ "$status" -eq 0 ]; then
        echo "fuzz: $name: ${runs:-?} executions in ${seconds:-?} s, no crash"
    else
        echo "fuzz: $name: FAILED (status $status) after ${runs:-?} executions; input in $artifacts/, log $log"
        grep -E "^==[0-9]+==ERROR|^SUMMARY|runtime error" "$log" | head -5 | sed 's/^/fuzz:   /'
    fi
    return "$status"
}

failed=0
pids=()
for h in "${harnesses[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do sleep 1; done
    run "$h" &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
exit $failed
