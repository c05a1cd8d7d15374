"""Eight MSAL Python processes × 100 token responses at once, through the plugin and, for
comparison, through msal-extensions' PersistedTokenCache over a FilePersistence.

The plugin must lose nothing and report no error. msal-extensions is measured, not judged: what it
loses and how long it blocks is written to TOKENCACHE_PYTEST_REPORT (a JSON file, when set) and
printed in the test's captured output. Under msal-extensions' file lock the full load takes about two
minutes on two cores; TOKENCACHE_EXTENSIONS_RESPONSES sets a smaller count per process for its side
(CI uses 10).
"""

import json
import os
import time

from tokencache import Cache

PROCESSES = 8
RESPONSES = 100
EXTENSIONS_RESPONSES = int(os.environ.get("TOKENCACHE_EXTENSIONS_RESPONSES", RESPONSES))
SCOPES = ["User.Read"]


def run_load(spawn, kind, location, responses=RESPONSES):
    apps = [spawn(kind, location, "w%d" % n) for n in range(PROCESSES)]
    began = time.perf_counter()
    for n, app in enumerate(apps):
        app.send("load", first=n * responses, count=responses, scopes=SCOPES)
    answers = [app.receive() for app in apps]
    wall = time.perf_counter() - began
    tokens = {}
    for answer in answers:
        tokens.update(answer["tokens"])
    return {
        "wall_seconds": round(wall, 2),
        "errors": [e for a in answers for e in a["errors"]],
        "slowest_response_seconds": round(max(a["slowest"] for a in answers), 3),
        "tokens": tokens,
    }


def report(name, result):
    path = os.environ.get("TOKENCACHE_PYTEST_REPORT")
    line = dict((k, v) for k, v in result.items() if k != "tokens")
    print("load %s: %s" % (name, json.dumps(line)))
    if path:
        existing = {}
        if os.path.exists(path):
            with open(path) as f:
                existing = json.load(f)
        existing[name] = line
        with open(path, "w") as f:
            json.dump(existing, f, indent=2)


def test_eight_processes_save_a_hundred_token_responses_each_and_lose_nothing(store, spawn):
    result = run_load(spawn, "plugin", store)
    assert result["errors"] == []
    assert len(result["tokens"]) == PROCESSES * RESPONSES
    with Cache() as cache:
        stored = {e["home_account_id"]: e["secret"] for e in cache.msal_search("AccessToken")}
        accounts = {e["home_account_id"] for e in cache.msal_search("Account")}
        refresh = {e["home_account_id"] for e in cache.msal_search("RefreshToken")}
    assert stored == result["tokens"], "%d of %d access tokens missing or different" % (
        sum(1 for k, v in result["tokens"].items() if stored.get(k) != v), len(result["tokens"]))
    assert accounts == refresh == set(result["tokens"])
    result["lost_access_tokens"] = 0
    report("tokencache plugin", result)


def test_the_same_load_through_msal_extensions_is_reported(tmp_path, spawn):
    location = str(tmp_path / "msal_cache.json")
    result = run_load(spawn, "extensions", location, EXTENSIONS_RESPONSES)
    with open(location) as f:
        stored = json.load(f).get("AccessToken", {})
    secrets = {e["secret"] for e in stored.values()}
    result["lost_access_tokens"] = sum(1 for v in result["tokens"].values() if v not in secrets)
    result["failed_responses"] = len(result["errors"])
    result["errors"] = sorted(set(e.split("\n")[0][:160] for e in result["errors"]))
    report("msal-extensions PersistedTokenCache (FilePersistence)", result)
    # Information only: the load ran to the end and every process answered.
    result["responses"] = PROCESSES * EXTENSIONS_RESPONSES
    assert len(result["tokens"]) + result["failed_responses"] == PROCESSES * EXTENSIONS_RESPONSES
