#!/usr/bin/env bash
# The cost of `wait=1` per save: times COUNT single-item saves (store-worker write, one process)
# with wait=0 and wait=1, against a standalone master with one replica and a three-master cluster
# with one replica each (scripts/redis-servers.sh start-replicated, in a temporary folder, stopped
# at the end), and prints microseconds per save and the difference.
#
#   bash scripts/redis-wait-cost.sh [COUNT]      (default 2000; the debug build's store-worker)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-2000}
swift build --product store-worker >/dev/null
bin="$(swift build --show-bin-path)/store-worker"
dir=$(mktemp -d "${TMPDIR:-/tmp}/tokencache-wait.XXXXXX")
trap 'bash scripts/redis-servers.sh stop "$dir"; rm -rf "$dir"' EXIT
bash scripts/redis-servers.sh start-replicated "$dir" >/dev/null
# shellcheck disable=SC1091
. "$dir/env"
export TOKENCACHE_REDIS_KEY
TOKENCACHE_REDIS_KEY=$(head -c 32 /dev/urandom | base64)
micros() {  # micros SPEC: microseconds per save of COUNT saves (process start included, once)
    local started ended
    started=$(date +%s%N)
    "$bin" write "$1" group.a 0 "$count" >/dev/null
    ended=$(date +%s%N)
    echo $(((ended - started) / 1000 / count))
}
for name in standalone cluster; do
    if [ "$name" = standalone ]; then spec=$TOKENCACHE_TEST_REDIS_REPLICATED; else spec=$TOKENCACHE_TEST_REDIS_CLUSTER_REPLICATED; fi
    without=$(micros "$spec?prefix=w0-$name&tracking=off")
    with=$(micros "$spec?prefix=w1-$name&tracking=off&wait=1")
    echo "$name with one replica: $without µs per save with wait=0, $with µs with wait=1 (+$((with - without)) µs)"
done
