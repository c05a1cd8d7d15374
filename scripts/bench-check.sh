#!/usr/bin/env bash
# Runs every benchmark briefly and fails when one's p90 wall-clock time is more than 3× the value
# recorded in Benchmarks/Thresholds (ordo-one benchmark's static thresholds; the 3× tolerance is set
# in the benchmarks' configuration). Used by CI; see docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
# 0: within the thresholds; 4: only improvements. 2 (or anything else): a regression or a failure.
# A p90 past 3x in a short run can be a moment of the machine's (CI once saw three at 2-4x right
# after the soak, all within on two reruns): a failing check runs once more, and the build fails
# only when that second run fails too. A real regression fails both.
for attempt in 1 2; do
    set +e
    TOKENCACHE_BENCH_SHORT=1 swift package benchmark thresholds check --no-progress
    status=$?
    set -e
    if [ "$status" -eq 0 ] || [ "$status" -eq 4 ]; then break; fi
    if [ "$attempt" -eq 1 ]; then echo "benchmarks: over a threshold (exit $status); running the check once more" >&2; fi
done
if [ "$status" -ne 0 ] && [ "$status" -ne 4 ]; then
    echo "error: a benchmark regressed past its threshold in two runs (exit $status); see above" >&2
    exit 1
fi
echo "benchmarks: every p90 within 3x of Benchmarks/Thresholds"
