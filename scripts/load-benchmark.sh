#!/usr/bin/env bash
# The load benchmark of docs/scaling.md ("Load: the web-app shape"): N users seeded into a 3-master
# Redis Cluster in both layouts (tokencache's partitions and one MSAL JSON blob per user), then
# PROCESSES worker processes per layout run a Zipf-distributed mix of silent lookups, saves and first
# sign-ins; then first sign-ins are timed at 1,000 users and at --sign-in-users on a standalone Redis
# and on SQLite. Starts its own servers (scripts/redis-servers.sh) and prints the Markdown table.
#
#   bash scripts/load-benchmark.sh [--docs] [options of TokenCacheLoad run]
#   bash scripts/load-benchmark.sh --users 2000 --seconds 5 --warm-up 1           # CI's size
#   bash scripts/load-benchmark.sh --docs --users 20000 --seconds 30 --warm-up 5   # docs/scaling.md's table
#   bash scripts/load-benchmark.sh --docs --users 1000000 --sign-in-users 100000 --seconds 60   # the full size
#
# Fails when seeding does not write what the engine writes (checked on 40 users first) or when a
# lookup of a seeded user finds no token; the goals' verdicts are reported, not enforced.
# --docs rewrites the table between docs/scaling.md's load-results markers (a re-run replaces it).
# Options: --users N (2,000), --sign-in-users N (= --users), --seconds S (10), --warm-up S (2),
# --processes P (4), --seeders P (8), --limit ITEMS (40,000: the partition-mode engine's limit), --zipf EXPONENT (0.99).
# Builds the load benchmark in release mode first (in .build-release, scripts/release-build.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
docs=()
if [ "${1:-}" = "--docs" ]; then
    docs=(--docs "$root/docs/scaling.md")
    shift
fi
# In the release build's folder, with its flags (scripts/release-build.sh), shared with the packages.
source "$root/scripts/release-build.sh"
cd "$root/Benchmarks"
swift build "${release_flags[@]}" --product TokenCacheLoad >&2
bin="$(swift build "${release_flags[@]}" --show-bin-path)/TokenCacheLoad"
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
machine="$(nproc) cores (${cpu:-unknown CPU}) shared by servers and clients, Redis $(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')"
bash "$root/scripts/redis-servers.sh" run bash -c \
    'exec "$0" run --cluster "$TOKENCACHE_TEST_REDIS_CLUSTER" --standalone "$TOKENCACHE_TEST_REDIS" "$@"' \
    "$bin" --machine "$machine" "${docs[@]}" "$@"
