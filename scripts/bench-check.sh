#!/usr/bin/env bash
# CI's benchmark check: every benchmark briefly (TOKENCACHE_BENCH_SHORT=1), then
# Benchmarks/report/check.py against Benchmarks/baseline.json: allocations per operation (the
# same run after run) may not grow past 25%, and no p90 may pass 10x its baseline (far beyond the
# 2-4x a shared machine swings; a lookup that starts reading the store is 100x slower). One run, no
# retry. See docs/benchmarks.md.
#
#   bash scripts/bench-check.sh             check
#   bash scripts/bench-check.sh --record    run, and write the baseline from the run
#   bash scripts/bench-check.sh --build-only   build the benchmarks (release) and their large stores
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
case "$mode" in check|--record|--build-only) ;; *) echo "usage: scripts/bench-check.sh [--record|--build-only]" >&2; exit 2 ;; esac

# The fixture tests of the comparison itself.
python3 Benchmarks/report/test_check.py >/dev/null

# In the release build's folder, with its flags (scripts/release-build.sh): after the packages'
# build, only the benchmarks' own code and the harness compile.
source scripts/release-build.sh
cd Benchmarks
swift build "${release_flags[@]}" --product TokenCacheBenchmarks >/dev/null
bin="$(swift build "${release_flags[@]}" --show-bin-path)/TokenCacheBenchmarks"
# The stores the large benchmarks use are built once an hour (30-40 s for the million-item one) by
# the first process that needs them: built here first, so that the run times benchmarks, not builds;
# --build-only builds them too, so that CI makes them while other steps run.
TOKENCACHE_BENCH_SHORT=1 "$bin" --filter "open store and first lookup, partition mode" \
    --filter "silent lookup after another writer's save" --filter "open store and first lookup, 10,000 accounts" >/dev/null \
    || echo "benchmarks: building the large stores beforehand failed (exit $?); the run builds them" >&2
if [ "$mode" = "--build-only" ]; then
    # Also the load benchmark (scripts/load-benchmark.sh), which CI runs next.
    swift build "${release_flags[@]}" --product TokenCacheLoad >/dev/null
    exit 0
fi

# A crashing benchmark process leaves its backtrace here (Swift's backtracer), printed on failure:
# the harness does not pass on the process's own standard error.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/backtraces"
set +e
SWIFT_BACKTRACE="enable=yes,interactive=no,output-to=$scratch/backtraces" \
    TOKENCACHE_BENCH_SHORT=1 swift package "${release_options[@]}" benchmark --target "^TokenCacheBenchmarks$" --no-progress --format markdown >"$scratch/report.md"
status=$?
set -e
for file in "$scratch"/backtraces/*; do
    [ -e "$file" ] || continue
    echo "benchmarks: a benchmark process crashed; its backtrace ($file):" >&2
    cat "$file" >&2
done
if [ "$status" -ne 0 ]; then
    cat "$scratch/report.md" >&2
    echo "error: the benchmark run failed (exit $status)" >&2
    exit 1
fi
if [ "$mode" = "--record" ]; then
    python3 report/check.py "$scratch/report.md" baseline.json --record
else
    python3 report/check.py "$scratch/report.md" baseline.json
fi
