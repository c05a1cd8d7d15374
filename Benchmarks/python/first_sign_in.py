"""The cost of an account's first sign-in as the store's signed-in users grow.

Signs in USERS distinct accounts to one app, one token response each, through libtokencache's save
(tokencache.Cache over a fresh SQLite store, whole-store engine), and prints the median and p90 of
the first saves around each checkpoint (the WINDOW saves before it). A first sign-in records the
account's sign-in state; when that state lives in one item per app listing every account, the save
grows with the users, and when it lives in the account's own partition it does not.

    python3 Benchmarks/python/first_sign_in.py [--users 3000] [--checkpoints 100,1000,3000] [--window 20]

Needs the tokencache package on the path (bindings/python/src) and libtokencache
(TOKENCACHE_LIBRARY, e.g. .build/release/libtokencache-c.so). Runs offline; times are wall clock on
whatever else the machine is doing, so compare runs made side by side.
"""

import argparse
import base64
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python", "src"))

import tokencache  # noqa: E402


def b64url(value):
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


def response(index):
    uid = "%08d-0000-4000-8000-000000000000" % index
    tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    return {
        "token_type": "Bearer", "scope": "User.Read openid profile", "expires_in": 3600, "ext_expires_in": 3600,
        "access_token": "at-%d" % index, "refresh_token": "rt-%d" % index,
        "client_info": b64url({"uid": uid, "utid": tenant}),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=3000)
    parser.add_argument("--checkpoints", default="100,1000,3000")
    parser.add_argument("--window", type=int, default=20)
    arguments = parser.parse_args()
    checkpoints = [int(c) for c in arguments.checkpoints.split(",")]
    request = {"authority": "https://login.microsoftonline.com/organizations", "client_id": "app", "scopes": ["User.Read"]}
    times = {}
    with tempfile.TemporaryDirectory() as directory:
        with tokencache.Cache("sqlite:" + os.path.join(directory, "cache.sqlite")) as cache:
            for index in range(1, arguments.users + 1):
                start = time.perf_counter()
                cache.save(request, response(index))
                times[index] = time.perf_counter() - start
    print("| signed-in users | first save, median | p90 |")
    print("|---|---|---|")
    for checkpoint in checkpoints:
        window = sorted(times[i] for i in range(max(1, checkpoint - arguments.window + 1), checkpoint + 1) if i in times)
        if not window:
            continue
        p90 = window[min(len(window) - 1, int(len(window) * 0.9))]
        print("| %d | %.2f ms | %.2f ms |" % (checkpoint, statistics.median(window) * 1000, p90 * 1000))


if __name__ == "__main__":
    main()
