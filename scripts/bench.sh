#!/usr/bin/env bash
# Side-by-side benchmarks of the papers' scenes: every scene with each collision mode
# (shatter, gimpact, hull) through shatter_run, then scripts/plot_steps.py writes docs/benchmarks.md and
# docs/images/bench_<scene>.png (TVCG Fig. 12 style); scripts/threads_report.py adds the narrow phase on
# one and two threads; last, scripts/realtime_report.py runs the scenes again paced to simulated time, as
# a game loop steps, and its table ends docs/benchmarks.md.
#   scripts/bench.sh                  full runs (each scene's duration)
#   STEPS_SCALE=0.5 scripts/bench.sh  every run shortened to half its steps
#   SCENES="plates bricks" scripts/bench.sh
#   STEPS_drop_piggies=120 scripts/bench.sh   one scene's step count
# BUILD_DIR selects the build folder (default: build); results (CSV, JSON, logs) go to $BUILD_DIR/bench.
# A run that exceeds RUN_TIMEOUT seconds (default 900) is stopped and left out of the tables.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
scenes=${SCENES:-"piggy_bank bricks plates drop_piggies"}
modes=${MODES:-"shatter gimpact hull"}
scale=${STEPS_SCALE:-1}
timeout_s=${RUN_TIMEOUT:-900}
out="$build/bench"
load_at_start=$(cut -d' ' -f1 /proc/loadavg) # timings mean little on a busy machine: say how busy it was

cmake --build "$build" --target shatter_run bench_scene_cd >/dev/null
run="$build/demo/run/shatter_run"
mkdir -p "$out"

notes=()
for scene in $scenes; do
    # Steps: the scene's duration / time step, scaled.
    full=$(python3 -c "import json,sys; d=json.load(open('$root/assets/scenes/$scene.json')); print(round(d.get('duration',5)/d.get('time_step',1/60)))")
    steps=$(python3 -c "print(max(1, round($full * $scale)))")
    override="STEPS_$scene"
    steps=${!override:-$steps}
    for mode in $modes; do
        echo "bench: $scene / $mode ($steps of $full steps)"
        rm -f "$out/${scene}_${mode}.csv" "$out/${scene}_${mode}.json"
        start=$(date +%s)
        if ! timeout "$timeout_s" "$run" "$scene" --collision "$mode" --steps "$steps" \
            --csv "$out/${scene}_${mode}.csv" --json "$out/${scene}_${mode}.json" >"$out/${scene}_${mode}.log" 2>&1; then
            echo "bench: $scene / $mode did not finish within ${timeout_s} s or failed (see $out/${scene}_${mode}.log)"
            notes+=("--note" "**$scene / $mode**: not in the tables — the run did not finish within ${timeout_s} s or failed.")
            rm -f "$out/${scene}_${mode}.csv" "$out/${scene}_${mode}.json"
            continue
        fi
        echo "bench:   $(($(date +%s) - start)) s wall"
    done
    # The Shatter run again with the narrow phase on two threads (threads table below).
    if [[ " $modes " == *" shatter "* ]]; then
        echo "bench: $scene / shatter, 2 narrow-phase threads"
        timeout "$timeout_s" "$run" "$scene" --threads 2 --steps "$steps" --json "$out/${scene}_shatter_t2.json" \
            >"$out/${scene}_shatter_t2.log" 2>&1 || rm -f "$out/${scene}_shatter_t2.json"
    fi
    if [ "$steps" != "$full" ]; then
        notes+=("--note" "**$scene**: shortened run, $steps of its $full steps.")
    fi
done

notes+=("--note" "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average $load_at_start when the runs started); Release build; Bullet $(pkg-config --modversion bullet) single precision.")
# The plots need matplotlib (Debian: python3-matplotlib); prefer an interpreter that has it.
python=${PYTHON:-python3}
if ! "$python" -c "import matplotlib" 2>/dev/null && /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
    python=/usr/bin/python3
fi
"$python" "$root/scripts/plot_steps.py" "$out" --images "$root/docs/images" --markdown "$root/docs/benchmarks.md" "${notes[@]}"

# The narrow phase on one and two threads (ParallelCollisionDispatcher).
{
    echo
    echo "## Narrow phase on two threads"
    echo
    echo "\`scripts/threads_report.py\`: \`bench_scene_cd\` times a recorded pile's narrow phase again and again, rounds of 1 and 2 threads alternating (medians); the scene rows compare the Shatter runs above with the same runs on \`--threads 2\`, which must end in the same state. This machine has $(nproc) cores."
    echo
    python3 "$root/scripts/threads_report.py" --build "$build" --bench "$out" --scenes $scenes
} >>"$root/docs/benchmarks.md"

# What fracture costs the simulation thread when a game loop paces the steps (jobs get their latency's
# wall time): Shatter mode only, one worker.
{
    echo
    echo "## Fracture cost, paced like a game"
    echo
    echo "\`scripts/realtime_report.py --workers 1\`: the Shatter runs again with \`shatter_run --realtime\` (each step waits until the wall clock reaches its simulated time, as a game loop does), one fracture worker. *max main ms* is what fracture cost the simulation thread in its worst step with an event, and in its worst step of any kind (goal ≤ 2 ms); *non-breaking main / run* is the share of the run's step time spent on fracture in steps without an event; *unready* counts impacts held back on fragments whose basis is not predicted built yet (\`fragmentReadySteps\`, \`fragmentBasisMs\`)."
    echo
    python3 "$root/scripts/realtime_report.py" --build "$build" --workers 1 --scenes $scenes
} >>"$root/docs/benchmarks.md"
