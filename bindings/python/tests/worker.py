"""A long-lived MSAL Python app in its own process, driven by JSON lines on stdin.

The multi-process tests and the benchmark start several of these: each has its own
PublicClientApplication over one token cache (the tokencache plugin, msal-extensions'
PersistedTokenCache over a FilePersistence, or MSAL's in-memory cache) and a FakeSTS, and answers one
JSON line per command on stdout:

    {"op": "acquire", "users": [3, 4], "scopes": ["User.Read"]}   auth-code flow for made-up users
    {"op": "silent", "scopes": ["User.Read"]}   get_accounts, then acquire_token_silent for each
    {"op": "remove", "home_account_id": "..."}   remove_account
    {"op": "load", "first": 0, "count": 100, "scopes": [...]}   many token responses, timed
    {"op": "quit"}
"""

import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import msal  # noqa: E402

import fake_sts  # noqa: E402

CLIENT_ID = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
AUTHORITY = "https://login.microsoftonline.com/organizations"
REDIRECT = "http://localhost"


def make_cache(kind, location):
    if kind == "plugin":
        from tokencache.msal import TokenCache
        return TokenCache(store=location)
    if kind == "extensions":
        from msal_extensions import FilePersistence, PersistedTokenCache
        return PersistedTokenCache(FilePersistence(location))
    if kind == "memory":
        return msal.SerializableTokenCache()
    raise ValueError("unknown cache kind " + kind)


class Worker:
    def __init__(self, kind, location, tag, client_id=CLIENT_ID, authority=AUTHORITY):
        self.sts = fake_sts.FakeSTS(tag=tag)
        self.cache = make_cache(kind, location)
        self.app = msal.PublicClientApplication(
            client_id, authority=authority, token_cache=self.cache, http_client=self.sts,
            instance_discovery=False)

    def acquire(self, users, scopes):
        tokens = {}
        for index in users:
            user = fake_sts.make_user(index)
            result = self.app.acquire_token_by_authorization_code(
                fake_sts.code_for(user), scopes, redirect_uri=REDIRECT)
            if "access_token" not in result:
                raise RuntimeError("acquire for user %d: %s" % (index, result.get("error")))
            tokens[user.home_account_id] = result["access_token"]
        return {"tokens": tokens, "posts": self.sts.posts}

    def silent(self, scopes):
        posts = self.sts.posts
        accounts = self.app.get_accounts()
        tokens = {}
        for account in accounts:
            result = self.app.acquire_token_silent(scopes, account=account)
            tokens[account["home_account_id"]] = (result or {}).get("access_token")
        return {"accounts": sorted(accounts, key=lambda a: (a["home_account_id"], a["realm"])),
                "tokens": tokens, "posts": self.sts.posts - posts}

    def remove(self, home_account_id):
        for account in self.app.get_accounts():
            if account["home_account_id"] == home_account_id:
                self.app.remove_account(account)
                return {"removed": True}
        return {"removed": False}

    def load(self, first, count, scopes):
        errors, slowest, tokens = [], 0.0, {}
        start = time.perf_counter()
        for index in range(first, first + count):
            user = fake_sts.make_user(index)
            began = time.perf_counter()
            try:
                result = self.app.acquire_token_by_authorization_code(
                    fake_sts.code_for(user), scopes, redirect_uri=REDIRECT)
                if "access_token" in result:
                    tokens[user.home_account_id] = result["access_token"]
                else:
                    errors.append(str(result.get("error")))
            except Exception as error:  # the load reports every failure instead of stopping
                errors.append("%s: %s" % (type(error).__name__, error))
            slowest = max(slowest, time.perf_counter() - began)
        return {"tokens": tokens, "errors": errors, "seconds": time.perf_counter() - start,
                "slowest": slowest}


def main():
    kind, location, tag = sys.argv[1], sys.argv[2], sys.argv[3]
    worker = Worker(kind, location, tag)
    print(json.dumps({"ready": os.getpid()}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        op = command.pop("op")
        if op == "quit":
            break
        try:
            answer = getattr(worker, op)(**command)
        except Exception:  # reported to the driving test, which fails with it
            answer = {"error": traceback.format_exc()}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
