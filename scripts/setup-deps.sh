#!/usr/bin/env bash
# Installs every Debian package Shatter's build, tests and demo need. Idempotent; quiet when all is
# present; works as root or through sudo.
set -euo pipefail

packages=(
    build-essential cmake pkg-config git
    libbullet-dev libbullet-extras-dev libeigen3-dev libtet1.5-dev libspectra-dev libassimp-dev libtbb-dev
    nlohmann-json3-dev libcli11-dev libstb-dev
    libglfw3-dev libimgui-dev python3-glad xvfb xauth libgl1-mesa-dri
    googletest libgtest-dev libgmock-dev libbenchmark-dev
    python3-matplotlib
    clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
else
    echo "setup-deps: need root or sudo to install: ${missing[*]}" >&2
    exit 1
fi

echo "setup-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
