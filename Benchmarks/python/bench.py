"""MSAL Python over three token caches, on caches MSAL Python itself wrote.

    (a) memory      msal.SerializableTokenCache: MSAL's own in-memory cache (neither persisted nor shared)
    (b) extensions  msal_extensions.PersistedTokenCache over a FilePersistence (what the Azure SDKs use)
    (c) tokencache  tokencache.msal.TokenCache over a SQLite store (this project's plugin)
    (d) tokencache-partitions
                    the same in partition mode (the engine loads per account): used when the installed
                    binding's TokenCache takes a `loading=` option, left out with a note otherwise

Scenarios, for each cache size (accounts signed in to one public client app):

    silent          acquire_token_silent for a known account (the account dict kept in a session)
    save            one token response persisted: acquire_token_by_authorization_code, fake STS
    silent after    a silent call right after another process saved a new token for that account;
                    the call must return that new token (not applicable to (a): nothing is shared)
    get_accounts    get_accounts() over every account

Runs offline (bindings/python/tests/fake_sts.py answers MSAL's requests). Prints a Markdown table;
`--json FILE` also writes the numbers (Benchmarks/report/report.py turns them into docs/benchmarks.md's
table and docs/scaling-chart.svg). `--short` is CI's quick mode (1,000 accounts, few rounds);
`--sizes 1000,10000,100000` the chart's sizes (at 100,000 and more, fewer rounds: each msal-extensions
save rewrites a file of about 100 MB); `--seeds DIR` keeps the caches MSAL Python wrote, to reuse.
Needs the venv of scripts/python-test.sh (MSAL Python, msal-extensions, the tokencache package) and
libtokencache (TOKENCACHE_LIBRARY or the system loader).
"""

import argparse
import inspect
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
KINDS = ("memory", "extensions", "tokencache", "tokencache-partitions")
LABELS = {"memory": "(a) MSAL in-memory", "extensions": "(b) msal-extensions file",
          "tokencache": "(c) tokencache plugin", "tokencache-partitions": "(d) tokencache, partition mode"}
NAMES = {"memory": "MSAL Python in-memory", "extensions": "msal-extensions", "tokencache": "tokencache",
         "tokencache-partitions": "tokencache, partition mode"}
# What `loading=` is given for (d); TOKENCACHE_BENCH_LOADING overrides it.
PARTITION_LOADING = os.environ.get("TOKENCACHE_BENCH_LOADING", "partitions")


def partition_mode_unavailable():
    """None when the installed binding's TokenCache takes `loading=`; else why (d) is left out."""
    try:
        from tokencache.msal import TokenCache
    except ImportError as error:
        return "the tokencache package is not installed (%s)" % error
    if "loading" not in inspect.signature(TokenCache.__init__).parameters:
        return "the installed binding's tokencache.msal.TokenCache has no loading= option"
    return None


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
    import tokencache  # (c) and (d)
    spec = "sqlite:" + os.path.join(directory, "cache.sqlite")
    with tokencache.Cache(store=spec) as store, open(seed, "rb") as f:
        store.import_msal_json(f.read())
    return spec


def make_cache(kind, location):
    if kind == "tokencache-partitions":
        from tokencache.msal import TokenCache
        return TokenCache(store=location, loading=PARTITION_LOADING)
    return worker.make_cache("plugin" if kind == "tokencache" else kind, location)


def open_app(kind, location):
    cache = make_cache(kind, location)
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

    if kind != "memory" and rounds["after"]:
        other = subprocess.Popen(
            [sys.executable, os.path.join(TESTS, "worker.py"), "plugin" if kind.startswith("tokencache") else kind,
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
    if rounds["accounts"]:
        results["get_accounts"] = summary(timed(get_accounts, rounds["accounts"]))
    samples = []
    for _ in range(rounds["after"] if rounds["accounts"] else 0):
        save()  # a change: nothing remembered for the listing may be reused
        samples.extend(timed(get_accounts, 1))
    if samples:
        results["accounts_after_save"] = summary(samples)
    results["http_posts_in_silent"] = sts.posts - rounds["save"] - len(samples)
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


def machine():
    """The processor, cores and memory, in one line, for the chart's footnote."""
    model, cores, memory = "unknown processor", os.cpu_count(), None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            memory = int(f.readline().split()[1]) / 1024 / 1024
    except OSError:
        pass
    return "%d-core %s, %s GiB, Python %s, MSAL Python %s" % (
        cores, model, "%.0f" % memory if memory else "?", sys.version.split()[0], msal.__version__)


def rounds_for(base, kind, size):
    rounds = dict(base)
    if size >= 100_000 and kind == "extensions":
        # Every save of (b) rewrites the whole file, about 300 MB at 100,000 accounts, with MSAL's
        # indented JSON (Python's pure-Python encoder): minutes a save on two cores. Two saves, and
        # no scenario that makes more (after another process's save, get_accounts after a save).
        rounds.update(silent=min(rounds["silent"], 1000), save=2, after=0, accounts=0)
    elif size >= 100_000:
        # A get_accounts() scans 100,000 accounts in Python: few rounds at this size.
        rounds.update(silent=min(rounds["silent"], 1000), save=3, after=3, accounts=3)
    elif kind == "extensions" and size > 1000:
        # The larger (b) saves take seconds each: fewer rounds there.
        rounds.update(save=min(rounds["save"], 3), after=min(rounds["after"], 3))
    return rounds


def seed_cache(size, directory, seeds):
    """The cache MSAL Python wrote for `size` accounts: in `seeds` when kept there, else written."""
    path = os.path.join(seeds or directory, "seed-%d.json" % size)
    if seeds and os.path.exists(path):
        print("bench: reusing %s" % path, file=sys.stderr)
        return path
    began = time.perf_counter()
    write_msal_cache(size, path)
    print("bench: MSAL Python wrote %d accounts in %.1f s" % (size, time.perf_counter() - began), file=sys.stderr)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--short", action="store_true", help="CI mode: 1,000 accounts, few rounds")
    parser.add_argument("--sizes", default=None, help="comma-separated account counts (default 1000,10000)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="which caches (default: all four)")
    parser.add_argument("--seeds", help="a folder to keep (and reuse) the caches MSAL Python writes")
    parser.add_argument("--skip", default="", help="KIND@SIZE,... not to run (noted in the JSON), e.g. extensions@100000")
    parser.add_argument("--skip-reason", action="append", default=[], metavar="KIND@SIZE=WHY",
                        help="why a --skip was made, for the note")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    # SQLite stores' data keys in a 0600 file beside them: no keyring needed (or touched).
    os.environ.setdefault("TOKENCACHE_KEY", "file")
    sizes = [int(s) for s in (args.sizes or ("1000" if args.short else "1000,10000")).split(",")]
    base = ({"silent": 300, "save": 3, "after": 3, "accounts": 3} if args.short
            else {"silent": 3000, "save": 10, "after": 10, "accounts": 10})
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        parser.error("unknown cache kinds: %s" % ", ".join(unknown))
    notes = []
    if "tokencache-partitions" in kinds:
        why = partition_mode_unavailable()
        if why:
            notes.append("tokencache, partition mode: not run (%s)" % why)
            print("bench: note: %s" % notes[-1], file=sys.stderr)
            kinds.remove("tokencache-partitions")
    skipped = {tuple(item.split("@")) for item in args.skip.split(",") if item}
    reasons = dict(item.split("=", 1) for item in args.skip_reason)
    for kind, size in sorted(skipped, key=lambda ks: (ks[0], int(ks[1]))):
        reason = reasons.get("%s@%s" % (kind, size))
        notes.append("%s: not run at %s accounts%s" % (
            NAMES.get(kind, kind), "{:,}".format(int(size)), " (%s)" % reason if reason else ""))
    if "extensions" in kinds and any(size >= 100_000 and ("extensions", str(size)) not in skipped for size in sizes):
        notes.append("msal-extensions at 100,000 accounts and more: two saves, and neither the silent call "
                     "after another process's save nor get_accounts(), which need more saves (each rewrites "
                     "the whole file)")
    if args.seeds:
        os.makedirs(args.seeds, exist_ok=True)
    load = os.getloadavg()[0]
    all_results = {}
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="tokencache-pybench-") as directory:
            seed = seed_cache(size, directory, args.seeds)
            all_results[size] = {}
            for kind in kinds:
                if (kind, str(size)) in skipped:
                    continue
                sub = os.path.join(directory, kind)
                os.mkdir(sub, 0o700)
                began = time.perf_counter()
                all_results[size][kind] = run_kind(kind, size, seed, sub, rounds_for(base, kind, size))
                print("bench: %s at %d accounts (%.0f s): %s" % (kind, size, time.perf_counter() - began,
                      json.dumps(all_results[size][kind])), file=sys.stderr)
    print(table(all_results))
    for note in notes:
        print("note: " + note)
    if args.json:
        loads = "load average %.1f at the start, %.1f at the end" % (load, os.getloadavg()[0])
        with open(args.json, "w") as f:
            json.dump({"msal": msal.__version__, "machine": machine() + "; " + loads, "notes": notes,
                       "results": all_results}, f, indent=2)


if __name__ == "__main__":
    main()
