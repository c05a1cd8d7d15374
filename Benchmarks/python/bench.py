"""MSAL Python over three token caches, on caches MSAL Python itself wrote.

    (a) memory      msal.SerializableTokenCache: MSAL's own in-memory cache (neither persisted nor shared)
    (b) extensions  msal_extensions.PersistedTokenCache over a FilePersistence (what the Azure SDKs use)
    (c) tokencache  tokencache.msal.TokenCache over a SQLite store (this project's plugin)

Scenarios, for each cache size (accounts signed in to one public client app):

    silent          acquire_token_silent for a known account (the account dict kept in a session)
    save            one token response persisted: acquire_token_by_authorization_code, fake STS
    silent after    a silent call right after another process saved a new token for that account;
                    the call must return that new token (not applicable to (a): nothing is shared)
    get_accounts    get_accounts() over every account

Runs offline (bindings/python/tests/fake_sts.py answers MSAL's requests). Prints a Markdown table;
`--json FILE` also writes the numbers. `--short` is CI's quick mode (1,000 accounts, few rounds).
Needs the venv of scripts/python-test.sh (MSAL Python, msal-extensions, the tokencache package) and
libtokencache (TOKENCACHE_LIBRARY or the system loader).
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "..", "bindings", "python", "tests")
sys.path.insert(0, TESTS)

import msal  # noqa: E402

import fake_sts  # noqa: E402
import worker  # noqa: E402

SCOPES = ["User.Read"]
KINDS = ("memory", "extensions", "tokencache")
LABELS = {"memory": "(a) MSAL in-memory", "extensions": "(b) msal-extensions file",
          "tokencache": "(c) tokencache plugin"}


def write_msal_cache(size, path):
    """MSAL Python writes the cache: one auth-code sign-in per account, then serialize()."""
    cache = msal.SerializableTokenCache()
    app = msal.PublicClientApplication(
        worker.CLIENT_ID, authority=worker.AUTHORITY, token_cache=cache,
        http_client=fake_sts.FakeSTS(tag="seed"), instance_discovery=False)
    for index in range(size):
        user = fake_sts.make_user(index)
        app.acquire_token_by_authorization_code(fake_sts.code_for(user), SCOPES, redirect_uri=worker.REDIRECT)
    with open(path, "w") as f:
        f.write(cache.serialize())
    os.chmod(path, 0o600)


def location_for(kind, directory, seed):
    """Each cache kind's own copy of the seed cache; returns what worker.make_cache takes."""
    if kind == "memory":
        return seed
    if kind == "extensions":
        path = os.path.join(directory, "msal_cache.json")
        with open(seed) as src, open(path, "w") as dst:
            dst.write(src.read())
        return path
    import tokencache
    spec = "sqlite:" + os.path.join(directory, "cache.sqlite")
    with tokencache.Cache(store=spec) as store, open(seed, "rb") as f:
        store.import_msal_json(f.read())
    return spec


def open_app(kind, location):
    cache = worker.make_cache("plugin" if kind == "tokencache" else kind, location)
    if kind == "memory":
        with open(location) as f:
            cache.deserialize(f.read())
    sts = fake_sts.FakeSTS(tag="bench")
    app = msal.PublicClientApplication(
        worker.CLIENT_ID, authority=worker.AUTHORITY, token_cache=cache, http_client=sts,
        instance_discovery=False)
    return app, sts


def timed(function, rounds):
    samples = []
    for _ in range(rounds):
        began = time.perf_counter_ns()
        function()
        samples.append(time.perf_counter_ns() - began)
    return samples


def summary(samples):
    ordered = sorted(samples)
    return {"p50_us": statistics.median(ordered) / 1000, "p90_us": ordered[max(0, math.ceil(len(ordered) * 0.9) - 1)] / 1000,
            "n": len(ordered)}


def account_of(app, index):
    user = fake_sts.make_user(index)
    accounts = app.get_accounts(username=user.username)
    assert len(accounts) == 1, "account %d not found" % index
    return accounts[0]


def run_kind(kind, size, seed, directory, rounds):
    location = location_for(kind, directory, seed)
    app, sts = open_app(kind, location)
    results = {}
    known = size // 2
    account = account_of(app, known)

    def silent():
        result = app.acquire_token_silent(SCOPES, account=account)
        assert result and result.get("token_source") == "cache", result
    timed(silent, 50)
    results["silent"] = summary(timed(silent, rounds["silent"]))

    next_user = [size + 1000]

    def save():
        user = fake_sts.make_user(next_user[0])
        next_user[0] += 1
        result = app.acquire_token_by_authorization_code(fake_sts.code_for(user), SCOPES, redirect_uri=worker.REDIRECT)
        assert "access_token" in result, result
    results["save"] = summary(timed(save, rounds["save"]))

    if kind != "memory":
        other = subprocess.Popen(
            [sys.executable, os.path.join(TESTS, "worker.py"), "plugin" if kind == "tokencache" else kind,
             location, "other"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        json.loads(other.stdout.readline())
        samples = []
        for round_ in range(rounds["after"]):
            index = known + 1 + round_
            target = account_of(app, index)
            other.stdin.write(json.dumps({"op": "acquire", "users": [index], "scopes": SCOPES}) + "\n")
            other.stdin.flush()
            answer = json.loads(other.stdout.readline())
            expected = answer["tokens"][target["home_account_id"]]
            began = time.perf_counter_ns()
            result = app.acquire_token_silent(SCOPES, account=target)
            samples.append(time.perf_counter_ns() - began)
            if not result or result.get("access_token") != expected:
                raise AssertionError("%s: silent call after another process's save missed the new token" % kind)
        other.stdin.write('{"op": "quit"}\n')
        other.stdin.flush()
        other.wait()
        results["after"] = summary(samples)

    def get_accounts():
        assert len(app.get_accounts()) >= size
    results["get_accounts"] = summary(timed(get_accounts, rounds["accounts"]))
    samples = []
    for _ in range(rounds["after"]):
        save()  # a change: nothing remembered for the listing may be reused
        samples.extend(timed(get_accounts, 1))
    results["accounts_after_save"] = summary(samples)
    results["http_posts_in_silent"] = sts.posts - rounds["save"] - rounds["after"]
    assert results["http_posts_in_silent"] == 0, "a silent call went to the STS"
    return results


def fmt(value):
    if value is None:
        return "—"
    if value >= 1_000_000:
        return "%.2f s" % (value / 1_000_000)
    if value >= 1000:
        return "%.1f ms" % (value / 1000)
    return "%.0f µs" % value if value >= 10 else "%.1f µs" % value


def table(all_results):
    lines = ["| accounts | cache | silent, known account | persisted save | silent after another process's save | get_accounts() | get_accounts(), first after a save |",
             "|---|---|---|---|---|---|---|"]
    for size, by_kind in all_results.items():
        for kind in [k for k in KINDS if k in by_kind]:
            r = by_kind[kind]
            cell = lambda key: "%s (%s)" % (fmt(r[key]["p50_us"]), fmt(r[key]["p90_us"])) if key in r else "n/a"
            save = cell("save") + (" — in memory only" if kind == "memory" else "")
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                "{:,}".format(size), LABELS[kind], cell("silent"), save, cell("after"), cell("get_accounts"),
                cell("accounts_after_save")))
        if "extensions" not in by_kind or "tokencache" not in by_kind:
            continue
        b, c = by_kind["extensions"]["save"]["p50_us"], by_kind["tokencache"]["save"]["p50_us"]
        lines.append("| %s | (b) ÷ (c), save | | %.0f× | | | |" % ("{:,}".format(size), b / c))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--short", action="store_true", help="CI mode: 1,000 accounts, few rounds")
    parser.add_argument("--sizes", default=None, help="comma-separated account counts (default 1000,10000)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="which caches (default memory,extensions,tokencache)")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    # SQLite stores' data keys in a 0600 file beside them: no keyring needed (or touched).
    os.environ.setdefault("TOKENCACHE_KEY", "file")
    sizes = [int(s) for s in (args.sizes or ("1000" if args.short else "1000,10000")).split(",")]
    rounds = ({"silent": 300, "save": 3, "after": 3, "accounts": 3} if args.short
              else {"silent": 3000, "save": 10, "after": 10, "accounts": 10})
    all_results = {}
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="tokencache-pybench-") as directory:
            seed = os.path.join(directory, "seed.json")
            began = time.perf_counter()
            write_msal_cache(size, seed)
            print("bench: MSAL Python wrote %d accounts in %.1f s" % (size, time.perf_counter() - began), file=sys.stderr)
            all_results[size] = {}
            for kind in args.kinds.split(","):
                sub = os.path.join(directory, kind)
                os.mkdir(sub, 0o700)
                # The larger (b) saves take seconds each: fewer rounds there.
                kind_rounds = dict(rounds, save=min(rounds["save"], 3), after=min(rounds["after"], 3)) if kind == "extensions" and size > 1000 else rounds
                all_results[size][kind] = run_kind(kind, size, seed, sub, kind_rounds)
                print("bench: %s at %d accounts: %s" % (kind, size, json.dumps(all_results[size][kind])), file=sys.stderr)
    print(table(all_results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"msal": msal.__version__, "results": all_results}, f, indent=2)


if __name__ == "__main__":
    main()
