#!/usr/bin/env bash
# Usage: shatter_asset_cli.sh SHATTER_ASSET SOURCE_DIR SCRATCH_DIR
set -euo pipefail
tool=$1 src=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Build and inspect.
"$tool" build "$src/assets/meshes/brick.obj" -o "$scratch/brick.shatter" >"$scratch/build.out"
grep -q "built $scratch/brick.shatter (no cache file yet)" "$scratch/build.out" || fail "first build: $(cat "$scratch/build.out")"
"$tool" info "$scratch/brick.shatter" --json >"$scratch/info.json"
python3 - "$scratch/info.json" <<'PY' || fail "info --json"
import json, sys
info = json.load(open(sys.argv[1]))
for key in ("triangles", "tetrahedra", "points", "surface_vertices"):
    assert isinstance(info[key], int) and info[key] > 0, key
assert info["points"] >= info["surface_vertices"]
PY

# An up-to-date cache is not rebuilt; a corrupt one is rebuilt with the reason.
"$tool" build "$src/assets/meshes/brick.obj" -o "$scratch/brick.shatter" | grep -q "is up to date" || fail "up to date"
printf 'garbage' | dd of="$scratch/brick.shatter" bs=1 seek=200 conv=notrunc status=none
"$tool" info "$scratch/brick.shatter" 2>"$scratch/err.txt" && fail "info accepted a corrupt file"
grep -q "brick.shatter: asset file is corrupt" "$scratch/err.txt" || fail "corrupt message: $(cat "$scratch/err.txt")"
"$tool" build "$src/assets/meshes/brick.obj" -o "$scratch/brick.shatter" | grep -q "cache unusable" || fail "rebuild"
"$tool" info "$scratch/brick.shatter" >/dev/null || fail "rebuilt file unreadable"

# --cache-dir names the file by content (<stem>-<16 hex of the content key>.shatter); a renamed copy of
# the mesh finds it and does not rebuild.
"$tool" build "$src/assets/meshes/brick.obj" --cache-dir "$scratch/cache" >"$scratch/keyed.out"
ls "$scratch/cache" | grep -Eq '^brick-[0-9a-f]{16}\.shatter$' || fail "keyed name: $(ls "$scratch/cache")"
cp "$src/assets/meshes/brick.obj" "$scratch/renamed.obj"
"$tool" build "$scratch/renamed.obj" --cache-dir "$scratch/cache" | grep -q "is up to date" || fail "renamed copy rebuilt"

# --repair says what it changed.
"$tool" build "$src/tests/data/bad/inconsistent_orientation.obj" --repair -o "$scratch/repaired.shatter" >"$scratch/repair.out"
grep -q "^import: made the winding consistent by flipping 1 triangle" "$scratch/repair.out" || fail "repair notes: $(cat "$scratch/repair.out")"

# A mesh whose file name is not UTF-8 (legal on Linux): the asset's name is its stem, and build and info
# print it with U+FFFD.
odd="$scratch/b$(printf '\xff\xfe')d.obj"
cp "$src/assets/meshes/brick.obj" "$odd"
"$tool" build "$odd" -o "$scratch/odd.shatter" >"$scratch/odd.out" || fail "non-UTF-8 name: build failed"
"$tool" info "$scratch/odd.shatter" --json >"$scratch/odd.json" || fail "non-UTF-8 name: info failed"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["name"] == "b\ufffd\ufffdd"' "$scratch/odd.json" \
    || fail "non-UTF-8 name: $(cat "$scratch/odd.json")"

# Bad meshes and bad flags: a clear error, exit code 1 or CLI11's usage error, never a crash.
"$tool" build "$src/tests/data/bad/open_box.obj" -o "$scratch/bad.shatter" 2>"$scratch/err.txt" && fail "open mesh accepted"
grep -q "open_box.obj" "$scratch/err.txt" || fail "error does not name the file: $(cat "$scratch/err.txt")"
[ ! -e "$scratch/bad.shatter" ] || fail "a failed build left a cache file"
"$tool" build "$scratch/missing.obj" -o "$scratch/x.shatter" 2>"$scratch/err.txt" && fail "missing file accepted"
grep -q "missing.obj" "$scratch/err.txt" || fail "missing-file message: $(cat "$scratch/err.txt")"
set +e
"$tool" build "$src/assets/meshes/brick.obj" -o "$scratch/x.shatter" --radius-edge 7 2>/dev/null
code=$?
set -e
[ "$code" -ne 0 ] && [ "$code" -lt 128 ] || fail "bad --radius-edge: exit $code"
# Size limits: a mesh too fine for them fails before TetGen, naming the option that changes it, and
# the build succeeds with the option the message gives.
"$tool" build "$src/assets/meshes/brick.obj" -o "$scratch/limit.shatter" --max-tets 500 2>"$scratch/err.txt" \
    && fail "--max-tets 500 accepted a brick of about 1,100 tets"
grep -q "shatter_asset build --max-tets [0-9]" "$scratch/err.txt" || fail "--max-tets message: $(cat "$scratch/err.txt")"
grep -q "tetrahedralizing" "$scratch/err.txt" && fail "--max-tets: TetGen ran before the limit was checked"
raised=$(sed -n 's/.*--max-tets \([0-9]*\)).*/\1/p' "$scratch/err.txt")
"$tool" build "$src/assets/meshes/brick.obj" -o "$scratch/limit.shatter" --max-tets "$raised" >/dev/null 2>&1 \
    || fail "the suggested --max-tets $raised did not build"
"$tool" build "$src/assets/meshes/brick.obj" -o "$scratch/limit.shatter" --force --max-grid-points 2000 \
    2>"$scratch/err.txt" && fail "--max-grid-points 2000 accepted a grid of 8,265 points"
factor=$(sed -n 's/.*--cell-factor \([0-9.e+-]*\)).*/\1/p' "$scratch/err.txt")
[ -n "$factor" ] || fail "--max-grid-points message: $(cat "$scratch/err.txt")"
"$tool" build "$src/assets/meshes/brick.obj" -o "$scratch/limit.shatter" --force --max-grid-points 2000 \
    --cell-factor "$factor" >/dev/null 2>&1 || fail "the suggested --cell-factor $factor did not build"
echo "shatter_asset CLI: all checks passed"
