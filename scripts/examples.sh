#!/usr/bin/env bash
# Runs the programs of examples/ against an offline identity provider, with the artifacts of
# scripts/package.sh OUTDIR (the wheel in a fresh venv with MSAL Python from PyPI; the tarball
# under a temporary prefix for the C program and the CLI):
#   1. python-cli: two processes; the first signs in (device code), the second is silent, with no
#      request to the identity provider; `tokencache accounts` lists the account;
#   2. python-web: two worker processes over one Redis (scripts/redis-servers.sh); one request
#      reaches the identity provider, every other one, in either worker, is served from the store;
#   3. c: examples/c/accounts.c, the program docs/c-api.md shows (the run fails if the two differ),
#      built with pkg-config and run against the store of step 1.
# Needs python3, a C compiler, pkg-config, redis-server and redis-cli.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

artifacts=${1:?usage: scripts/examples.sh OUTDIR (the artifacts of scripts/package.sh)}
artifacts=$(cd "$artifacts" && pwd)
wheels=("$artifacts"/tokencache-*-manylinux_*_x86_64.whl)
tarballs=("$artifacts"/tokencache-*-linux-x86_64.tar.gz)
[ -f "${wheels[0]}" ] && [ -f "${tarballs[0]}" ] || { echo "examples: no wheel or tarball in $artifacts (run scripts/package.sh)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tokencache-examples.XXXXXX")
cleanup() {
    [ -n "${web_pid:-}" ] && kill "$web_pid" 2>/dev/null && wait "$web_pid" 2>/dev/null
    [ -d "$work/redis" ] && bash scripts/redis-servers.sh stop "$work/redis" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "examples: $*" >&2; exit 1; }

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-input "${wheels[0]}" msal==1.39.0
python=$work/venv/bin/python
tar -xzf "${tarballs[0]}" -C "$work"
sh "$work"/tokencache-*-linux-x86_64/install.sh "$work/prefix" >/dev/null

# Every program runs with a home of its own and the default (SQLite) store in it.
export HOME=$work/home TOKENCACHE_KEY=file
unset TOKENCACHE_STORE TOKENCACHE_LIBRARY XDG_DATA_HOME
mkdir -p "$HOME"

echo "== python-cli: sign in once, silent afterwards, two processes"
run_cli() { "$python" examples/testing/with_fake_sts.py examples/python-cli/signin.py "$@"; }
run_cli > "$work/first.out" 2> "$work/first.err"
run_cli > "$work/second.out" 2> "$work/second.err"
cat "$work/first.out" "$work/second.out"
grep -q "token from the identity provider" "$work/first.out" || fail "the first process did not sign in: $(cat "$work/first.err")"
grep -q '"token_requests": 0' "$work/second.err" && grep -q "token from the cache" "$work/second.out" \
    || fail "the second process was not silent: $(cat "$work/second.out" "$work/second.err")"
"$work/venv/bin/tokencache" accounts --json > "$work/accounts.json"
grep -q '"user1@contoso.com"' "$work/accounts.json" || fail "tokencache accounts does not list the account: $(cat "$work/accounts.json")"
echo "tokencache accounts: user1@contoso.com"

echo "== c: the program of docs/c-api.md"
python3 - "$root/docs/c-api.md" "$root/examples/c/accounts.c" <<'PY' || fail "docs/c-api.md's example differs from examples/c/accounts.c"
import sys
doc, program = (open(path, encoding="utf-8").read() for path in sys.argv[1:])
start = doc.index("```c\n", doc.index("## A complete example")) + len("```c\n")
sys.exit(0 if doc[start:doc.index("```\n", start)] == program else 1)
PY
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig
cc -std=c99 -Wall -Wextra -Werror -o "$work/accounts" examples/c/accounts.c $(pkg-config --cflags --libs tokencache)
"$work/accounts" > "$work/c.out"
cat "$work/c.out"
grep -q '"user1@contoso.com"' "$work/c.out" || fail "the C program does not list the account"

echo "== python-web: two workers over one Redis"
bash scripts/redis-servers.sh start "$work/redis" > "$work/redis.env"
. "$work/redis.env"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
TOKENCACHE_REDIS_KEY=$(head -c 32 /dev/urandom | base64) \
TOKENCACHE_WEB_STORE="$TOKENCACHE_TEST_REDIS_TCP?key=env:TOKENCACHE_REDIS_KEY" \
CLIENT_ID=5f7a2b1c-0000-4000-8000-00000000e1a1 CLIENT_SECRET=offline-example-secret \
TENANT_ID=72f988bf-86f1-41af-91ab-2d7cd011db47 \
    "$python" examples/testing/with_fake_sts.py examples/python-web/app.py --port "$port" --workers 2 \
    > "$work/web.out" 2> "$work/web.err" &
web_pid=$!
for _ in $(seq 100); do
    grep -q serving "$work/web.out" 2>/dev/null && break
    kill -0 "$web_pid" 2>/dev/null || fail "the web app did not start: $(cat "$work/web.err")"
    sleep 0.1
done
# Until both workers have answered (the kernel picks the worker of each connection), at most 40 requests.
for _ in $(seq 40); do
    curl --silent --show-error --max-time 10 "http://127.0.0.1:$port/" >> "$work/answers"
    [ "$(python3 -c 'import json, sys; print(len({json.loads(l)["worker"] for l in open(sys.argv[1])}))' "$work/answers")" -ge 2 ] && break
done
cat "$work/answers"
python3 - "$work/answers" <<'PY' || fail "the web app's workers did not share the token (answers above, log: $(cat "$work/web.err"))"
import json, sys
answers = [json.loads(line) for line in open(sys.argv[1])]
sources = [answer.get("token_source") for answer in answers]
workers = {answer.get("worker") for answer in answers}
ok = len(workers) >= 2 and sources[0] == "identity_provider" and all(s == "cache" for s in sources[1:])
print("%d answers from %d workers: the first from the identity provider, %d from the store"
      % (len(answers), len(workers), sources.count("cache")))
sys.exit(0 if ok else 1)
PY
echo "examples: all passed"
