#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring, in a throwaway
# HOME and XDG_DATA_HOME, so tests that need the Secret Service never touch the user's keyring:
#
#   bash scripts/with-keyring.sh COMMAND [ARGUMENTS…]
#
# gnome-keyring creates and unlocks a login keyring with the password it reads on stdin; an empty
# password would make it ask through a prompt instead. Without dbus-run-session or
# gnome-keyring-daemon the command runs as it is, except under CI=true, where that is an error.
set -euo pipefail
if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    mkdir -m 700 "$scratch/home" "$scratch/data"
    HOME="$scratch/home" XDG_DATA_HOME="$scratch/data" dbus-run-session -- sh -c \
        'printf "tokencache-ci" | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' sh "$@"
elif [ "${CI:-}" = "true" ]; then
    echo "error: dbus-run-session or gnome-keyring-daemon is missing; CI must run the Secret Service tests" >&2
    exit 1
else
    echo "note: dbus-run-session or gnome-keyring-daemon is missing; Secret Service tests cannot run" >&2
    "$@"
fi
