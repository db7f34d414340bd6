#!/usr/bin/env bash
# The README's test command: installs dependencies, configures, builds with all cores and runs every
# test. Extra arguments go to CMake's configure step (e.g. -DSHATTER_SANITIZE=ON).
# BUILD_DIR selects the build folder (default: build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/setup-deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
# CTEST_ARGS passes extra ctest arguments (e.g. -E _smoke); unquoted on purpose to split words.
# shellcheck disable=SC2086
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" ${CTEST_ARGS:-}
