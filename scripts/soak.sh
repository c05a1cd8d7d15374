#!/usr/bin/env bash
# Soak: 6 worker processes for SECONDS (default 60) doing random saves, lookups, removals and MSAL
# JSON imports against one SQLite store, while a killer SIGKILLs a random worker every few seconds
# and restarts it. Then the checker (soak-worker check) verifies that every acknowledged write is
# present, nothing removed reappeared, the integrity check passes and no process saw an error other
# than not-found; it prints the counts.
#
#   bash scripts/soak.sh [SECONDS]        SOAK_WORKERS=6 SOAK_KILL_EVERY=3 (seconds) by default
#
# With SOAK_STORE set to a redis:// or redis+unix:// store spec, the workers share that Redis store
# instead (under a fresh key prefix; TOKENCACHE_REDIS_KEY is generated when unset), e.g.
#   bash scripts/redis-servers.sh run sh -c 'SOAK_STORE=$TOKENCACHE_TEST_REDIS bash scripts/soak.sh 45'
#
# Logs and the store are kept in a temporary folder, printed at the end (removed when all is well).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
workers=${SOAK_WORKERS:-6}
kill_every=${SOAK_KILL_EVERY:-3}

swift build --product soak-worker
dir=$(mktemp -d "${TMPDIR:-/tmp}/tokencache-soak.XXXXXX")
# A copy, so that a build during the soak cannot swap the program under the restarts.
cp "$(swift build --show-bin-path)/soak-worker" "$dir/soak-worker"
bin="$dir/soak-worker"
store="$dir/store/cache.sqlite"
if [ -n "${SOAK_STORE:-}" ]; then
    case "$SOAK_STORE" in *\?*) separator='&' ;; *) separator='?' ;; esac
    store="${SOAK_STORE}${separator}prefix=soak-$(basename "$dir" | tr -c 'A-Za-z0-9\n' '-')"
    if [ -z "${TOKENCACHE_REDIS_KEY:-}" ]; then
        TOKENCACHE_REDIS_KEY=$(python3 -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())')
        export TOKENCACHE_REDIS_KEY
    fi
fi
end=$(( $(date +%s) + seconds ))

declare -A pids
start_worker() {
    local worker=$1 left=$(( end - $(date +%s) ))
    pids[$worker]=""
    [ "$left" -gt 0 ] || return 0  # killed at the very end: not restarted
    "$bin" work "$store" "$dir/worker-$worker.log" "$worker" "$left" 2>>"$dir/worker-$worker.err" &
    pids[$worker]=$!
}

for ((w = 0; w < workers; w++)); do start_worker "$w"; done

kills=0
while [ "$(date +%s)" -lt "$end" ]; do
    sleep "$kill_every"
    [ "$(date +%s)" -lt "$end" ] || break
    victim=$(( RANDOM % workers ))
    pid=${pids[$victim]}
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        # A random moment into its work: mid-save, mid-import, mid-lookup.
        sleep "0.$(( RANDOM % 10 ))"
        kill -KILL "$pid" 2>/dev/null && kills=$((kills + 1)) || true
        wait "$pid" 2>/dev/null || true
        start_worker "$victim"
    fi
done

failed=0
for ((w = 0; w < workers; w++)); do
    [ -n "${pids[$w]}" ] || continue
    if ! wait "${pids[$w]}"; then
        echo "soak: worker $w exited with an error (see $dir/worker-$w.log)" >&2
        failed=1
    fi
done
echo "soak: $seconds s, $kills SIGKILLs"
if ! "$bin" check "$store" "$dir" "$workers"; then failed=1; fi
if cat "$dir"/worker-*.err 2>/dev/null | grep -q .; then
    echo "soak: workers wrote to stderr:" >&2
    cat "$dir"/worker-*.err | sort | uniq -c | head -20 >&2
    failed=1
fi
if [ $failed -ne 0 ]; then
    echo "soak: FAILED; store and logs kept in $dir" >&2
    exit 1
fi
rm -rf "$dir"
