#!/usr/bin/env bash
# Starts or stops the Redis servers the test suites run against, all inside DIR:
#
#   bash scripts/redis-servers.sh start DIR    # prints `export …` lines for the specs
#   bash scripts/redis-servers.sh stop DIR
#   bash scripts/redis-servers.sh run COMMAND [ARGUMENTS…]   # start, run, stop (even on failure)
#   bash scripts/redis-servers.sh start-replicated DIR         # servers with replicas (below)
#
# One standalone redis-server (a unix socket and a loopback port) and a three-master Redis Cluster
# on loopback ports, none persisting anything (--save '' --appendonly no), each in its own folder.
# `start` writes DIR/env with TOKENCACHE_TEST_REDIS (the unix socket), TOKENCACHE_TEST_REDIS_TCP and
# TOKENCACHE_TEST_REDIS_CLUSTER. Waits are bounded: a server that does not come up within 20 s
# fails the start.
#
# `start-replicated` starts instead a standalone master with one replica and a Redis Cluster of three
# masters with one replica each (cluster-node-timeout 1000 ms), and writes DIR/env with
# TOKENCACHE_TEST_REDIS_REPLICATED and TOKENCACHE_TEST_REDIS_CLUSTER_REPLICATED (for `wait=N`
# measurements: scripts/redis-wait-cost.sh); `stop DIR` stops them too.
set -euo pipefail

free_port() {  # a free loopback port whose cluster bus port (+10000) is free too
    python3 - <<'PY'
import random, socket
for _ in range(200):
    port = random.randint(10000, 22000)  # below the ephemeral range (32768+), bus port included
    try:
        for candidate in (port, port + 10000):
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", candidate))
    except OSError:
        continue
    print(port)
    break
PY
}

wait_for() {  # wait_for SECONDS COMMAND…: polls every 0.1 s until COMMAND succeeds
    local deadline=$((SECONDS + $1)); shift
    until "$@" >/dev/null 2>&1; do
        if [ "$SECONDS" -ge "$deadline" ]; then return 1; fi
        sleep 0.1
    done
}

start_server() {  # start_server FOLDER PORT [EXTRA OPTIONS…]
    local folder=$1 port=$2; shift 2
    mkdir -p "$folder"
    redis-server --daemonize yes --dir "$folder" --pidfile "$folder/redis.pid" --logfile "$folder/redis.log" \
        --bind 127.0.0.1 --port "$port" --save '' --appendonly no --protected-mode yes "$@"
}

start_cluster() {  # start_cluster DIR NAME NODES REPLICAS NODE_TIMEOUT: a cluster in DIR/NAME-1…; prints its first port
    local dir=$1 name=$2 count=$3 replicas=$4 node_timeout=$5 nodes=()
    for ((index = 1; index <= count; index++)); do
        local port; port=$(free_port)
        start_server "$dir/$name-$index" "$port" --cluster-enabled yes --cluster-config-file "$dir/$name-$index/nodes.conf" \
            --cluster-node-timeout "$node_timeout"
        wait_for 20 redis-cli -p "$port" ping || { echo "error: cluster node $port did not start" >&2; exit 1; }
        nodes+=("127.0.0.1:$port")
    done
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas "$replicas" --cluster-yes >"$dir/$name-create.log" 2>&1 \
        || { echo "error: redis-cli --cluster create failed (see $dir/$name-create.log)" >&2; exit 1; }
    for node in "${nodes[@]}"; do
        wait_for 20 sh -c "redis-cli -p ${node##*:} cluster info | grep -q 'cluster_state:ok'" \
            || { echo "error: the cluster did not reach state ok" >&2; exit 1; }
        if [ "$replicas" -gt 0 ]; then
            wait_for 20 sh -c "redis-cli -p ${node##*:} info replication | grep -Eq 'connected_slaves:$replicas|master_link_status:up'" \
                || { echo "error: the cluster's replicas did not attach" >&2; exit 1; }
        fi
    done
    echo "${nodes[0]##*:}"
}

start() {
    local dir=$1
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    local single_port; single_port=$(free_port)
    start_server "$dir/single" "$single_port" --unixsocket "$dir/single/redis.sock" --unixsocketperm 700
    wait_for 20 redis-cli -s "$dir/single/redis.sock" ping || { echo "error: redis-server did not start (see $dir/single/redis.log)" >&2; exit 1; }

    local first; first=$(start_cluster "$dir" cluster 3 0 2000)
    cat >"$dir/env" <<ENV
export TOKENCACHE_TEST_REDIS='redis+unix://$dir/single/redis.sock'
export TOKENCACHE_TEST_REDIS_TCP='redis://127.0.0.1:$single_port'
export TOKENCACHE_TEST_REDIS_CLUSTER='redis://127.0.0.1:$first'
ENV
    cat "$dir/env"
}

start_replicated() {
    local dir=$1
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    local master_port replica_port
    master_port=$(free_port)
    start_server "$dir/master" "$master_port"
    wait_for 20 redis-cli -p "$master_port" ping || { echo "error: redis-server $master_port did not start" >&2; exit 1; }
    replica_port=$(free_port)
    start_server "$dir/replica" "$replica_port" --replicaof 127.0.0.1 "$master_port"
    wait_for 20 sh -c "redis-cli -p $master_port info replication | grep -q 'connected_slaves:1'" \
        || { echo "error: the replica did not attach" >&2; exit 1; }

    local first; first=$(start_cluster "$dir" replicated 6 1 1000)
    cat >"$dir/env" <<ENV
export TOKENCACHE_TEST_REDIS_REPLICATED='redis://127.0.0.1:$master_port'
export TOKENCACHE_TEST_REDIS_CLUSTER_REPLICATED='redis://127.0.0.1:$first'
ENV
    cat "$dir/env"
}

stop() {
    local dir=$1
    for pidfile in "$dir"/*/redis.pid; do
        [ -f "$pidfile" ] || continue
        local pid; pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null || true
        wait_for 10 sh -c "! kill -0 $pid" || kill -9 "$pid" 2>/dev/null || true
    done
}

case "${1:-}" in
    start) start "$2" ;;
    start-replicated) start_replicated "$2" ;;
    stop) stop "$2" ;;
    run)
        shift
        scratch=$(mktemp -d)
        trap 'stop "$scratch"; rm -rf "$scratch"' EXIT
        start "$scratch" >/dev/null
        # shellcheck disable=SC1091
        . "$scratch/env"
        "$@"
        ;;
    *) echo "usage: $0 start DIR | start-replicated DIR | stop DIR | run COMMAND [ARGUMENTS…]" >&2; exit 2 ;;
esac
