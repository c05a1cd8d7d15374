#!/usr/bin/env bash
# Several processes against one Redis: each runs lookups for SECONDS through the benchmark
# executable's load worker (Benchmarks/Benchmarks/TokenCacheBenchmarks/RedisBenchmarks.swift),
# COLD_PERCENT of them on a cold partition (lookup-key index + partition read on the server), the
# rest warm (the engine's memory, revalidated by tracking); prints lookups per second in total.
#
#   bash scripts/redis-load.sh PROCESSES SECONDS COLD_PERCENT     (TOKENCACHE_BENCH_REDIS: the store spec)
#   bash scripts/redis-servers.sh run sh -c 'TOKENCACHE_BENCH_REDIS=$TOKENCACHE_TEST_REDIS bash scripts/redis-load.sh 4 10 10'
#
# Builds the benchmarks in release mode first (swift build -c release in Benchmarks/).
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
processes=${1:-4}
seconds=${2:-10}
cold=${3:-10}
: "${TOKENCACHE_BENCH_REDIS:?set TOKENCACHE_BENCH_REDIS to a redis:// or redis+unix:// store spec}"
swift build -c release --product TokenCacheBenchmarks >/dev/null
bin="$(swift build -c release --show-bin-path)/TokenCacheBenchmarks"
# One process first, alone, so the dataset is built and copied into Redis before the others start.
TOKENCACHE_BENCH_REDIS_WORKER="0.1,0" "$bin" >/dev/null
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for ((p = 0; p < processes; p++)); do
    TOKENCACHE_BENCH_REDIS_WORKER="$seconds,$cold" "$bin" >"$dir/$p.out" &
done
wait
awk -v processes="$processes" -v cold="$cold" '
    $1 == "lookups" { lookups += $2; colds += $4; if ($6 > seconds) seconds = $6 }
    END { printf "redis load: %d processes, %d%% cold: %.0f lookups/s in total (%.0f cold/s), %d lookups in %.1f s\n",
                 processes, cold, lookups / seconds, colds / seconds, lookups, seconds }' "$dir"/*.out
