#!/usr/bin/env bash
# The cost of `wait=1` per save: COUNT single-item saves with wait=0 and as many with wait=1, one
# of each in turn in one process (store-worker wait-cost), against a standalone master with one
# replica and a three-master cluster with one replica each (scripts/redis-servers.sh
# start-replicated, in a temporary folder, stopped at the end); prints the median microseconds per
# save of each and the difference.
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
for name in standalone cluster; do
    if [ "$name" = standalone ]; then spec=$TOKENCACHE_TEST_REDIS_REPLICATED; else spec=$TOKENCACHE_TEST_REDIS_CLUSTER_REPLICATED; fi
    read -r _ without with < <("$bin" wait-cost "$spec?prefix=$name&tracking=off" group.a "$count")
    echo "$name with one replica: median $without µs per save with wait=0, $with µs with wait=1 (+$((with - without)) µs)"
done
