#!/usr/bin/env bash
# Runs the test suite under a sanitizer, in its own build folder so it never disturbs .build:
#
#   bash scripts/sanitize.sh thread     # ThreadSanitizer (CI runs this one), in .build-tsan
#   bash scripts/sanitize.sh address    # AddressSanitizer, in .build-asan
#   bash scripts/sanitize.sh thread --build-only   # the build alone (CI starts it in the background)
#
# Extra arguments go to `swift test` (e.g. --filter ConcurrentAccess). A data race, a heap error or
# a failing test fails the script. Like scripts/test.sh, the tests run inside a private D-Bus session
# with an unlocked keyring (scripts/with-keyring.sh), so the Secret Service tests run here too.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer=${1:-thread}
shift || true
build_only=false
if [ "${1:-}" = "--build-only" ]; then build_only=true; shift; fi
flags=()
case $sanitizer in
    # Swift's Mutex hands a contended lock over through futexes inside the uninstrumented standard
    # library, which ThreadSanitizer cannot see; the stores' and the engine's locks become pthread
    # mutexes in this build (Sources/CacheStore/StateLock.swift), so their real synchronization is checked.
    thread) scratch=.build-tsan; flags=(-Xswiftc -DTOKENCACHE_PTHREAD_LOCKS) ;;
    address) scratch=.build-asan ;;
    *) echo "usage: $0 thread|address [swift test arguments]" >&2; exit 2 ;;
esac

# halt_on_error: the first report fails the process that saw it (a child process too), so it can't
# scroll by unnoticed; second_deadlock_stack gives both stacks of a lock-order report.
# Swift's crash backtracer, spawned from the signal handler, trips ThreadSanitizer's fork check and
# was left holding the run's output open: a crashed test hung the run instead of failing it. The
# sanitizers print their own stacks.
export SWIFT_BACKTRACE=enable=no
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
# Leak checking is off: the Swift runtime's and Foundation's one-time caches look like leaks.
export ASAN_OPTIONS="detect_leaks=0 halt_on_error=1 ${ASAN_OPTIONS:-}"

swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" "${flags[@]}"
if $build_only; then exit 0; fi
# The Redis conformance suites run against the servers redis-servers.sh starts, as in test.sh.
redis=()
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then redis=(bash scripts/redis-servers.sh run); fi
bash scripts/with-keyring.sh "${redis[@]}" \
    swift test --skip-build --disable-xctest --sanitize="$sanitizer" --scratch-path "$scratch" "${flags[@]}" "$@"
