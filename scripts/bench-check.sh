#!/usr/bin/env bash
# Runs every benchmark briefly and fails when one's p90 wall-clock time is more than 3× the value
# recorded in Benchmarks/Thresholds (ordo-one benchmark's static thresholds; the 3× tolerance is set
# in the benchmarks' configuration). Used by CI; see docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
set +e
TOKENCACHE_BENCH_SHORT=1 swift package benchmark thresholds check --no-progress
status=$?
set -e
# 0: within the thresholds; 4: only improvements. 2 (or anything else): a regression or a failure.
if [ "$status" -ne 0 ] && [ "$status" -ne 4 ]; then
    echo "error: a benchmark regressed past its threshold (exit $status); see above" >&2
    exit 1
fi
echo "benchmarks: every p90 within 3x of Benchmarks/Thresholds"
