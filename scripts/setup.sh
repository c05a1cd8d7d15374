#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages tokencache needs, as root (a fresh container has no sudo) or
# through sudo. A Swift 6.1+ toolchain must already be on PATH to build from source (swift.org).
#
#   bash scripts/setup.sh            # what building and running the CLI need
#   bash scripts/setup.sh --tests    # and everything the tests and CI use (.ci/run calls this)
#
#   bash scripts/setup.sh && swift run tokencache accounts
set -euo pipefail

# Building: SQLite's headers (the store), hiredis's headers (the Redis backend's shim; the library is
# loaded at run time), pkg-config. Running: SQLite; libsecret-1-0 and libhiredis0.14 are optional,
# loaded when a Secret Service or Redis store is used.
packages=(libsqlite3-dev libhiredis-dev pkg-config)
case "${1:-}" in
    "") ;;
    --tests)
        # The Secret Service tests (a private gnome-keyring on a private D-Bus session), the Redis
        # tests (real redis-server processes), the interop and binding tests (Python venvs), the C ABI
        # test (valgrind), the libsecret loading check (its headers), packaging (dpkg-shlibdeps, lintian)
        # and its clean room and examples (curl, gcc).
        packages+=(libsecret-1-dev gnome-keyring dbus-x11 libsecret-tools python3 python3-venv valgrind binutils
            redis-server dpkg-dev lintian curl gcc)
        ;;
    *) echo "usage: scripts/setup.sh [--tests]" >&2; exit 2 ;;
esac

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
