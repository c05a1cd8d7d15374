#!/usr/bin/env bash
# Installs the system packages tokencache builds and tests with, on Debian or Ubuntu: the same list
# CI installs (.ci/run calls this script). Works as root (a fresh container has no sudo) and as a
# user with sudo. A Swift 6.1+ toolchain must already be on PATH (swift.org).
#
#   bash scripts/setup.sh && swift run tokencache doctor
set -euo pipefail

packages=(libsqlite3-dev libsecret-1-dev gnome-keyring dbus-x11 libsecret-tools python3 python3-venv valgrind pkg-config binutils redis-server libhiredis-dev)

if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
else
    echo "error: run as root, or install sudo, to install: ${packages[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq "${packages[@]}" >/dev/null

if ! command -v swift >/dev/null 2>&1; then
    echo "note: the system packages are installed, but no swift is on PATH: install a Swift 6.1+ toolchain from swift.org" >&2
fi
