#!/usr/bin/env bash
# Regenerates the golden summaries of the scene regression tests (tests/scenes/golden/NAME.json) with
# shatter_run --json. Run it deliberately, after a change that is meant to alter the simulation, and
# commit the new files with that change; tests/scenes/scene_regression_test.cpp compares against them.
# BUILD_DIR selects the build folder (default: build). The step counts here bound the tests' run time
# (the whole scene test set stays under ~2 minutes in Release on 2 cores).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake --build "$build" --target shatter_run >/dev/null
run="$build/demo/run/shatter_run"

declare -A steps=(
    [piggy_bank]=45   # 0.68 s at 15 ms: the fall, the break at 0.55 s, the pieces spreading
    [bricks]=25       # 0.75 s at 30 ms: every brick hits the ground, about 20 of them break
    [plates]=30       # 0.9 s at 30 ms: the first two balls have hit and broken their plates
    [drop_piggies]=82 # 0.41 s at 5 ms: the first batch of 9 lands and breaks, the second is spawned
)
mkdir -p "$root/tests/scenes/golden"
for scene in piggy_bank bricks plates drop_piggies; do
    echo "golden: $scene (${steps[$scene]} steps)"
    "$run" "$scene" --steps "${steps[$scene]}" --json "$root/tests/scenes/golden/$scene.json" >/dev/null
done
