#!/usr/bin/env bash
# The thread-race tests under AddressSanitizer, for the price of one library build: the C ABI's
# close-versus-call race (Sources/TokenCacheC/HandleTable.swift) and the Python binding's close race
# (bindings/python/tests/test_close_race.py) run against libtokencache built with
# -sanitize=address (a debug build, which compiles in half the time of a release one, of only the
# tokencache-c product, in .build-asan-lib), so a use after free or a double free of a handle
# racing its close is reported and fails the run.
#
#   bash scripts/asan-races.sh            # build, then the C race (Tests/CABI/close_race.c) and the Python one
#   bash scripts/asan-races.sh --build-only
#
# The C program is built with the toolchain's clang against the same shared ASan runtime; Python is
# not instrumented, so that runtime is preloaded into it. ThreadSanitizer covers the same races in
# scripts/tsan.sh (HandleLifetimeTests). Needs pytest: the interop venv's python (scripts/interop-venv.sh), else python3.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-asan-lib
flags=(--product tokencache-c --sanitize=address --scratch-path "$scratch")
swift build "${flags[@]}"
if [ "${1:-}" = "--build-only" ]; then exit 0; fi
library="$(swift build "${flags[@]}" --show-bin-path)/libtokencache-c.so"

toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
clang="$toolchain/clang"
runtime=$("$clang" -print-file-name=libclang_rt.asan-x86_64.so)
[ -f "$runtime" ] || { echo "asan-races: no ASan runtime at $runtime" >&2; exit 1; }
swift_libs="$toolchain/../lib/swift/linux"

work=$(mktemp -d "${TMPDIR:-/tmp}/tokencache-asan.XXXXXX")
trap 'rm -rf "$work"' EXIT
# halt_on_error: the first report ends the process with a failure; leaks are not the point here
# (the Swift runtime's one-time caches look like leaks).
export ASAN_OPTIONS="detect_leaks=0 halt_on_error=1 ${ASAN_OPTIONS:-}"
export LD_LIBRARY_PATH="$(dirname "$runtime"):$swift_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HOME="$work" TOKENCACHE_KEY=file

"$clang" -std=c99 -D_DEFAULT_SOURCE -O1 -g -fsanitize=address -shared-libasan -Iinclude \
    -o "$work/close_race" Tests/CABI/close_race.c "$library" -Wl,-rpath,"$(dirname "$library")" -lpthread
"$work/close_race" memory 40
"$work/close_race" "sqlite:$work/race.sqlite" 15

# The interop venv (scripts/interop-venv.sh) has pytest; else the system's python3.
python=python3
if [ -x .venv-interop/bin/python ]; then python="$PWD/.venv-interop/bin/python"; fi
TOKENCACHE_LIBRARY="$library" PYTHONPATH="$PWD/bindings/python/src" LD_PRELOAD="$runtime" \
    "$python" -m pytest -q -p no:cacheprovider bindings/python/tests/test_close_race.py
