#!/usr/bin/env bash
# Measures the CLI as a whole process on a large MSAL Python cache: wall time and peak resident
# size (`/usr/bin/time -v`) of the targeted commands (lookup, accounts --username/--identifier,
# remove-account) and of the `accounts` listings (the kinds of item they show, and for comparison
# the whole store). The numbers go into docs/scaling.md by hand.
#
#   bash scripts/cli-scale.sh [ACCOUNTS] [BINARY]
#
# ACCOUNTS (default 10000) accounts as MSAL Python writes them for one app: an account record, an
# ID token, a refresh token and 7 access tokens each (10 items), plus the app metadata; imported
# with `tokencache import` into an encrypted SQLite store (key file). BINARY defaults to the
# release build, .build/release/tokencache (`swift build -c release --product tokencache`). Each
# command runs ROUNDS times (default 5) and the median time and largest peak are shown; the
# store and the generated cache live in a temporary directory, removed at the end (KEEP=1 keeps it).
set -euo pipefail
cd "$(dirname "$0")/.."

accounts=${1:-10000}
binary=${2:-.build/release/tokencache}
rounds=${ROUNDS:-5}
[ -x "$binary" ] || { echo "cli-scale: no $binary (swift build -c release --product tokencache)" >&2; exit 2; }
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")

work=$(mktemp -d "${TMPDIR:-/tmp}/tokencache-cli-scale.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
export HOME="$work/home" XDG_DATA_HOME="$work/home/data" TOKENCACHE_KEY=file
export TOKENCACHE_STORE="sqlite:$work/cache.sqlite"
mkdir -p -m 0700 "$HOME"

# The cache MSAL Python would serialize for these sign-ins (its keys and entry forms).
python3 - "$accounts" "$work/msal.json" <<'PYTHON'
import base64, json, os, sys, time

count, path = int(sys.argv[1]), sys.argv[2]
client, tenant, env = "04b07795-8ddb-461a-bbee-02f9e1bf7b46", "72f988bf-86f1-41af-91ab-2d7cd011db47", "login.microsoftonline.com"
scopes = ["User.Read", "Mail.Read", "Calendars.Read", "Files.Read", "Sites.Read.All", "Contacts.Read", "Tasks.Read"]
# Issued now, valid for a day: the lookups find them.
now = int(time.time())
expires = now + 86400


def b64(value):
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


cache = {"AccessToken": {}, "Account": {}, "IdToken": {}, "RefreshToken": {}, "AppMetadata": {}}
for index in range(count):
    oid = "00000000-0000-4000-8000-%012d" % index
    home = oid + "." + tenant
    username = "user%d@contoso.com" % index
    prefix = home + "-" + env
    cache["Account"][prefix + "-organizations"] = {
        "home_account_id": home, "environment": env, "realm": "organizations", "local_account_id": oid,
        "username": username, "authority_type": "MSSTS", "account_source": "authorization_code"}
    claims = {"aud": client, "iss": "https://%s/%s/v2.0" % (env, tenant), "iat": now, "exp": expires,
              "name": "user%d" % index, "oid": oid, "preferred_username": username, "sub": "sub-" + oid, "tid": tenant}
    cache["IdToken"][prefix + "-idtoken-%s-organizations-" % client] = {
        "credential_type": "IdToken", "secret": b64({"alg": "none", "typ": "JWT"}) + "." + b64(claims) + ".",
        "home_account_id": home, "environment": env, "realm": "organizations", "client_id": client}
    cache["RefreshToken"][prefix + "-refreshtoken-%s--user.read" % client] = {
        "credential_type": "RefreshToken", "secret": "rt-seed-%08d" % index, "home_account_id": home,
        "environment": env, "client_id": client, "target": "User.Read", "last_modification_time": str(now)}
    for scope in scopes:
        cache["AccessToken"][prefix + "-accesstoken-%s-organizations-%s" % (client, scope.lower())] = {
            "credential_type": "AccessToken", "secret": "at-seed-%08d-%s" % (index, scope), "home_account_id": home,
            "environment": env, "client_id": client, "target": scope, "realm": "organizations", "token_type": "Bearer",
            "cached_at": str(now), "expires_on": str(expires), "extended_expires_on": str(expires)}
cache["AppMetadata"]["appmetadata-%s-%s" % (env, client)] = {"client_id": client, "environment": env}
with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
    json.dump(cache, f)
PYTHON

"$binary" import "$work/msal.json" >/dev/null
items=$(python3 -c 'import json,sys; print(sum(len(v) for v in json.load(open(sys.argv[1])).values()))' "$work/msal.json")

# A user in the middle of the store, so no command is helped by the store's order.
middle=$((accounts / 2))
oid=$(printf '00000000-0000-4000-8000-%012d' "$middle")
home="$oid.72f988bf-86f1-41af-91ab-2d7cd011db47"
client=04b07795-8ddb-461a-bbee-02f9e1bf7b46

# Runs one command ROUNDS times; prints its median wall time and its largest peak resident size.
# An argument @NEXT@ becomes another account's home account id in each round (for removals).
measure() {
    local label=$1; shift
    local times=() peak=0 round=0
    for _ in $(seq "$rounds"); do
        round=$((round + 1))
        local next arguments=()
        next="$(printf '00000000-0000-4000-8000-%012d' $((middle + round))).72f988bf-86f1-41af-91ab-2d7cd011db47"
        for argument in "$@"; do arguments+=("${argument//@NEXT@/$next}"); done
        /usr/bin/time -v -o "$work/time.txt" "${arguments[@]}" >/dev/null 2>"$work/stderr.txt" || {
            status=$?
            # Not found (1) is an answer; anything else is a failure of the measurement.
            [ "$status" -eq 1 ] || { cat "$work/stderr.txt" "$work/time.txt" >&2; exit 1; }
        }
        local wall rss
        wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
        rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
        times+=("$(python3 -c 'import sys; p=sys.argv[1].split(":"); print(round((float(p[0])*60+float(p[1]))*1000))' "$wall")")
        [ "$rss" -gt "$peak" ] && peak=$rss
    done
    local median
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (rounds + 1) / 2 ))p")
    printf '| `%s` | %s ms | %s MB |\n' "$label" "$median" "$((peak / 1024))"
}

echo "cli-scale: $accounts accounts, $items items, $rounds rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "| command | time (median) | peak memory |"
echo "|---|---|---|"
measure "lookup access-token" "$binary" lookup access-token --client-id "$client" --account "$home" --scopes User.Read
measure "lookup refresh-token --account" "$binary" lookup refresh-token --client-id "$client" --account "$home"
measure "accounts --username" "$binary" accounts --username "user$middle@contoso.com"
measure "accounts --identifier" "$binary" accounts --identifier "$home"
measure "accounts --username (none)" "$binary" accounts --username nobody@contoso.com
# The same questions answered from a whole read, as every command did before (--whole-store).
measure "lookup access-token --whole-store" "$binary" lookup access-token --client-id "$client" --account "$home" --scopes User.Read --whole-store
measure "accounts --username --whole-store" "$binary" accounts --username "user$middle@contoso.com" --whole-store
measure "accounts" "$binary" accounts
measure "accounts --whole-store" "$binary" accounts --whole-store
measure "accounts --json" "$binary" accounts --json
measure "accounts --client-id" "$binary" accounts --client-id "$client"
# Each round signs another account out (and then wipes another one).
measure "remove-account" "$binary" remove-account --client-id "$client" --account @NEXT@
middle=$((middle + rounds))
measure "remove-account --wipe" "$binary" remove-account --wipe --client-id "$client" --account @NEXT@
