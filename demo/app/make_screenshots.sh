#!/usr/bin/env bash
# Regenerates the demo screenshots in docs/images/ with shatter_demo's headless mode (under xvfb-run where
# there is no display). Usage: demo/app/make_screenshots.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
demo=${1:-$root/build}/demo/app/shatter_demo
out=$root/docs/images
mkdir -p "$out"

shot() {
    local name=$1
    shift
    echo "== $name"
    xvfb-run -a -s "-screen 0 1920x1080x24" "$demo" --headless --width 1600 --height 900 \
        --screenshot "$out/$name.png" "$@" | tail -n 1
}

# The three paper scenes, with the panels.
shot demo_plates --scene plates --frames 45 --camera 25,28,2.0,0.0,1.0,0
shot demo_piggy_bank --scene piggy_bank --frames 60 --camera 30,30,1.05,0.02,0.05,0
shot demo_bricks --scene bricks --frames 40 --camera 35,32,2.3,0,0.05,0
# Debug views (the panel shows which one is on).
shot demo_debug_contacts --scene bricks --frames 40 --view contacts --camera 35,45,1.8,0,0.05,0
shot demo_debug_spheres --scene piggy_bank --frames 60 --view spheres:6,colors --camera 30,30,0.8,0.02,0.05,0
shot demo_debug_slice --scene bricks --frames 40 --view slice:y,hide-surfaces --camera 35,65,2.0,0,0.05,0
shot demo_debug_tets --scene bricks --frames 40 --view tets,colors,hide-surfaces --camera 35,45,1.1,0,0.05,0
shot demo_fragment_colors --scene plates --frames 45 --view colors --hide-ui --camera 25,35,1.4,0.0,1.1,0
# A rejected mesh: the validation error in the Objects panel and the log, the scene still running.
shot demo_bad_mesh --scene plates --frames 10 --mesh "$root/tests/data/bad/open_box.obj" --camera 25,28,2.0,0.0,1.0,0
