#!/usr/bin/env bash
# Runs tokencache's benchmarks and MSAL Python on the same cache, and prints the comparison table.
#
#   bash Benchmarks/compare/run.sh [MSAL_JSON_CACHE]
#
# Without an argument the benchmarks' generated cache is used (exported as MSAL JSON for Python).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bash "$root/scripts/interop-venv.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -ge 1 ]; then
    cache="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
    export TOKENCACHE_BENCH_CACHE="$cache"
else
    cache="$work/cache.json"
    export TOKENCACHE_BENCH_EXPORT="$cache"
fi
(cd "$root/Benchmarks" && swift package benchmark --no-progress) | tee "$work/results.txt"
"$root/.venv-interop/bin/python" "$root/Benchmarks/compare/msal_python_compare.py" \
    --cache "$cache" --tokencache-results "$work/results.txt"
