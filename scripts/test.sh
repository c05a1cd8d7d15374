#!/usr/bin/env bash
# Runs the whole test suite the way CI does.
#
# The Secret Service tests need a keyring: when gnome-keyring and dbus-run-session are installed,
# the tests run inside a private D-Bus session with an unlocked gnome-keyring and a throwaway HOME
# and XDG_DATA_HOME, so they never touch the user's real keyring or cache.
set -euo pipefail
cd "$(dirname "$0")/.."

# MSAL Python for the interop tests, in .venv-interop. CI must have it (the tests fail there without
# it); elsewhere a machine that cannot install it skips those tests.
if ! bash scripts/interop-venv.sh; then
    if [ "${CI:-}" = "true" ]; then
        echo "error: could not install MSAL Python for the interop tests" >&2
        exit 1
    fi
    echo "note: MSAL Python could not be installed; the MSAL Python interop tests will be skipped" >&2
fi
export TOKENCACHE_INTEROP_PYTHON="$PWD/.venv-interop/bin/python"

# Build with the user's own HOME (package caches live there), then run the built tests.
swift build --build-tests

# The Redis suites run against a redis-server and a three-master Redis Cluster that
# redis-servers.sh starts on loopback for the run and stops afterwards. CI must have them (the
# Redis tests fail there without them); elsewhere a machine without redis-server skips them.
redis=()
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
    redis=(bash scripts/redis-servers.sh run)
elif [ "${CI:-}" = "true" ]; then
    echo "error: redis-server and redis-cli are missing; CI must run the Redis tests (apt-get install redis-server)" >&2
    exit 1
else
    echo "note: redis-server is not installed; the Redis and Redis Cluster tests will be skipped" >&2
fi

# The suite, inside a private D-Bus session with an unlocked keyring (see with-keyring.sh).
# Many tests block a thread while child processes, servers or timeouts run; on Swift's default
# executor (one thread per core) each such wait leaves a core idle. Dispatch's ordinary global queues
# add a thread when one blocks, so the other tests go on meanwhile.
SWIFT_DEBUG_CONCURRENCY_ENABLE_COOPERATIVE_QUEUES=false \
    bash scripts/with-keyring.sh "${redis[@]}" swift test --skip-build --disable-xctest

# Every tokencache command the README and docs/ show runs, in a sandbox: a doc that drifts from the
# CLI (an option renamed, a subcommand gone) fails here.
python3 scripts/doc-commands.py "$(swift build --show-bin-path)/tokencache"
