#!/usr/bin/env python3
"""Times the real MSAL Python TokenCache on the same cache file and scenarios as tokencache's
benchmarks, in-process, and prints one table: scenario, tokencache p50, MSAL Python p50, ratio.

Usage (Benchmarks/compare/run.sh does all of it):
    msal_python_compare.py --cache CACHE.json --tokencache-results BENCHMARK_OUTPUT.txt

CACHE.json is the MSAL JSON cache the benchmarks ran on (TOKENCACHE_BENCH_EXPORT); the results
file is the text output of `swift package benchmark`. MSAL Python is driven through its public
TokenCache API the way its ClientApplication drives it (search with the same queries), offline.
"""
import argparse
import json
import os
import re
import statistics
import tempfile
import time

import msal

CT = msal.TokenCache.CredentialType
UNITS = {"ns": 1, "μs": 1_000, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


def tokencache_p50s(path):
    """p50 wall-clock time per benchmark, in nanoseconds, from `swift package benchmark` text output."""
    results, current = {}, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line and not line.startswith(("│", "╒", "╞", "├", "╘", "=", " ", "warning")) and "│" not in line:
            current = line.strip()
        match = re.match(r"│ Time \(wall clock\) \((\w+)\) \*\s*│(.*)", line)
        if match and current:
            columns = [c.strip() for c in match.group(2).split("│")]
            results[current] = int(columns[2].replace(",", "")) * UNITS[match.group(1)]
    return results


def p50(function, rounds=30, inner=200):
    """Median time of one call, in nanoseconds."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        for _ in range(inner):
            function()
        samples.append((time.perf_counter_ns() - start) / inner)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", required=True)
    parser.add_argument("--tokencache-results", required=True)
    args = parser.parse_args()

    text = open(args.cache, encoding="utf-8").read()
    cache = msal.SerializableTokenCache()
    cache.deserialize(text)
    raw = json.loads(text)
    accounts = list(raw.get("Account", {}).values())
    access_tokens = [at for at in raw.get("AccessToken", {}).values() if int(at["expires_on"]) > time.time() + 600]
    family_rts = [rt for rt in raw.get("RefreshToken", {}).values() if rt.get("family_id") == "1"]
    counts = {}
    for rt in raw.get("RefreshToken", {}).values():
        counts[rt["client_id"]] = counts.get(rt["client_id"], 0) + 1
    listing_client = max(counts, key=counts.get)
    environment = accounts[0]["environment"]

    def account_by_identifier(i=[0]):
        i[0] = (i[0] + 7) % len(accounts)
        return next(cache.search(CT.ACCOUNT, query={"home_account_id": accounts[i[0]]["home_account_id"]}), None)

    def account_by_username(i=[0]):
        # MSAL Python's get_accounts(username=…) compares lower-cased usernames over every account.
        i[0] = (i[0] + 7) % len(accounts)
        wanted = accounts[i[0]]["username"].upper().lower()
        return [a for a in cache.search(CT.ACCOUNT, query={"environment": environment}) if a["username"].lower() == wanted]

    def all_accounts():
        # _find_msal_accounts: the environment's accounts of the usual types, grouped by home account.
        grouped = {}
        for a in cache.search(CT.ACCOUNT, query={"environment": environment}):
            if a.get("authority_type") in ("MSSTS", "ADFS"):
                grouped.setdefault(a["home_account_id"], a)
        return list(grouped.values())

    def at_query(at):
        return {"client_id": at["client_id"], "environment": at["environment"], "realm": at["realm"],
                "home_account_id": at["home_account_id"]}

    def access_token_exact(i=[0]):
        i[0] = (i[0] + 7) % len(access_tokens)
        at = access_tokens[i[0]]
        return next(cache.search(CT.ACCESS_TOKEN, target=at["target"].split(), query=at_query(at)), None)

    def access_token_subset(i=[0]):
        # MSAL Python has no alias table and compares scopes case-sensitively: asked in the token's
        # own environment and case, which only favours it.
        i[0] = (i[0] + 7) % len(access_tokens)
        at = access_tokens[i[0]]
        scope = next(s for s in at["target"].split() if s.lower() not in ("openid", "profile", "offline_access"))
        return next(cache.search(CT.ACCESS_TOKEN, target=[scope], query=at_query(at)), None)

    def family_refresh_token(i=[0]):
        i[0] = (i[0] + 7) % len(family_rts)
        rt = family_rts[i[0]]
        return next(cache.search(CT.REFRESH_TOKEN, query={"home_account_id": rt["home_account_id"], "family_id": "1"}), None)

    directory = tempfile.mkdtemp()
    cache_path = os.path.join(directory, "msal_cache.json")
    with open(cache_path, "w") as handle:
        handle.write(text)
    saver = msal.SerializableTokenCache()
    saver.deserialize(text)
    template = access_tokens[0]

    def client_info(uid, utid):
        import base64
        return base64.urlsafe_b64encode(json.dumps({"uid": uid, "utid": utid}).encode()).decode().rstrip("=")

    def id_token(claims):
        import base64
        part = lambda o: base64.urlsafe_b64encode(json.dumps(o).encode()).decode().rstrip("=")
        return part({"alg": "none"}) + "." + part(claims) + ".sig"

    def save_token_response(i=[0]):
        # What a persisted MSAL Python cache does per token response: add, serialize, write the file.
        i[0] += 1
        uid, tid = f"saver-{i[0] % 64}", template["realm"]
        saver.add({
            "client_id": template["client_id"], "scope": ["User.Read", "Mail.Read"],
            "token_endpoint": f"https://login.microsoftonline.com/{tid}/oauth2/v2.0/token",
            "response": {"access_token": "a" * 1200, "refresh_token": "r" * 800, "expires_in": 86400,
                         "token_type": "Bearer", "foci": "1", "client_info": client_info(uid, tid),
                         "id_token": id_token({"tid": tid, "oid": uid, "preferred_username": f"{uid}@contoso.com",
                                               "iss": f"https://login.microsoftonline.com/{tid}/v2.0", "sub": uid,
                                               "aud": template["client_id"], "exp": 9999999999, "iat": 1})},
        })
        with open(cache_path, "w") as handle:
            handle.write(saver.serialize())
            handle.flush()
            os.fsync(handle.fileno())

    def open_and_first_lookup():
        fresh = msal.SerializableTokenCache()
        fresh.deserialize(open(cache_path, encoding="utf-8").read())
        at = access_tokens[len(access_tokens) // 2]
        return next(fresh.search(CT.ACCESS_TOKEN, target=at["target"].split(), query=at_query(at)), None)

    scenarios = [
        ("account by identifier", account_by_identifier, 200),
        ("account by username", account_by_username, 20),
        ("all accounts", all_accounts, 5),
        # MSAL Python remembers no listing: the same scan answers both rows.
        ("all accounts, first after a save", all_accounts, 5),
        ("access token, exact scopes", access_token_exact, 200),
        ("access token, scope subset via alias", access_token_subset, 20),
        ("family refresh token", family_refresh_token, 200),
        ("save token response", save_token_response, 2),
        ("open store and first lookup", open_and_first_lookup, 1),
    ]
    ours = tokencache_p50s(args.tokencache_results)

    def show(nanoseconds):
        for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
            if nanoseconds >= scale:
                return f"{nanoseconds / scale:.3g} {unit}"
        return f"{nanoseconds:.0f} ns"

    print(f"Cache: {len(accounts)} account records, {len(raw.get('AccessToken', {}))} access tokens, "
          f"{len(raw.get('RefreshToken', {}))} refresh tokens, {len(raw.get('IdToken', {}))} ID tokens; MSAL Python {msal.__version__}")
    print()
    print("| scenario | tokencache (p50) | MSAL Python (p50) | MSAL Python ÷ tokencache |")
    print("|---|---|---|---|")
    for name, function, inner in scenarios:
        theirs = p50(function, rounds=15 if inner > 1 else 7, inner=inner)
        mine = ours.get(name)
        ratio = (f"{theirs / mine:,.0f}×" if theirs >= 10 * mine else f"{theirs / mine:.1f}×") if mine else "—"
        print(f"| {name} | {show(mine) if mine else 'not measured'} | {show(theirs)} | {ratio} |")


if __name__ == "__main__":
    main()
