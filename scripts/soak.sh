#!/usr/bin/env bash
# The soak at full length (docs/fuzzing.md, "Soak"): steel balls raining on plates and piggy banks for
# 20,000 internal steps in one world, the scene respawned every 3 simulated seconds (the test `soak`
# runs the same); fails if a body turns
# non-finite, a body ends more than 5 cm below the ground, or the peak resident size after the last step
# exceeds 1.1 times that after step 2,000. The fracture jobs run inline (--workers 0): with a worker the
# peak depends on which jobs happen to overlap the simulation thread's work. Builds shatter_soak in BUILD_DIR (default: build, configured by
# scripts/test.sh); extra arguments go to shatter_soak (--help lists them), e.g. --json soak.json.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target shatter_soak
exec "$build/tests/soak/shatter_soak" --steps 20000 --baseline-step 2000 --max-growth 1.1 --lowest -0.05 --workers 0 "$@"
