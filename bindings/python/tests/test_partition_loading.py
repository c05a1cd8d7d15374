"""Partition loading (`loading="partitions"`) from Python: `tokencache.Cache` and the MSAL plugin.

On a SQLite store always; on Redis (one node and a cluster) when `scripts/redis-servers.sh run`
started the servers (TOKENCACHE_TEST_REDIS_TCP, TOKENCACHE_TEST_REDIS_CLUSTER).
"""

import base64
import os
import time
import uuid

import msal
import pytest

import fake_sts
import worker
import tokencache
from tokencache.msal import TokenCache

HOST = "https://login.microsoftonline.com/"
TENANT = fake_sts.make_user(0).utid


def redis_spec(variable):
    base = os.environ.get(variable)
    if not base:
        pytest.skip("%s is not set: run under scripts/redis-servers.sh run" % variable)
    # a prefix of the test's own, so that runs and tests never meet
    return base + ("&" if "?" in base else "?") + "prefix=pytest-" + uuid.uuid4().hex[:12] + "&key=env:TOKENCACHE_REDIS_KEY"


@pytest.fixture(params=["sqlite", "redis", "redis-cluster"])
def spec(request, store, monkeypatch):
    if request.param == "sqlite":
        return store
    monkeypatch.setenv("TOKENCACHE_REDIS_KEY", base64.b64encode(os.urandom(32)).decode())
    return redis_spec("TOKENCACHE_TEST_REDIS_TCP" if request.param == "redis" else "TOKENCACHE_TEST_REDIS_CLUSTER")


def sign_in(app, index, scopes=("User.Read",)):
    user = fake_sts.make_user(index)
    return app.acquire_token_by_authorization_code(fake_sts.code_for(user), list(scopes), redirect_uri=worker.REDIRECT)


def silent_until(app, home, done):
    """`acquire_token_silent` for an account until `done(result)`, for at most 5 s: another
    handle's commit is seen at once on SQLite, and on Redis when its invalidation message arrives
    (docs/redis.md)."""
    deadline = time.monotonic() + 5
    while True:
        result = app.acquire_token_silent(["User.Read"], account={"home_account_id": home,
                                                                  "environment": "login.microsoftonline.com"})
        if done(result) or time.monotonic() > deadline:
            return result
        time.sleep(0.01)


def test_the_plugin_in_partition_mode_serves_each_account_and_follows_other_writers(spec):
    writer_sts = fake_sts.FakeSTS(tag="w")
    with TokenCache(spec) as writer_cache:
        writer = msal.PublicClientApplication(worker.CLIENT_ID, authority=HOST + "organizations",
                                              token_cache=writer_cache, http_client=writer_sts, instance_discovery=False)
        tokens = {fake_sts.make_user(i).home_account_id: sign_in(writer, i)["access_token"] for i in range(5)}

        sts = fake_sts.FakeSTS(tag="p")
        with TokenCache(spec, loading="partitions", partition_limit=50) as cache:
            assert cache.cache.loading == "partitions"
            app = msal.PublicClientApplication(worker.CLIENT_ID, authority=HOST + "organizations",
                                               token_cache=cache, http_client=sts, instance_discovery=False)
            for home, token in tokens.items():
                account = {"home_account_id": home, "environment": "login.microsoftonline.com"}
                found = app.acquire_token_silent(["User.Read"], account=account)
                assert found["access_token"] == token and found["token_source"] == "cache"
            assert sts.posts == 0
            assert sorted(a["home_account_id"] for a in app.get_accounts()) == sorted(tokens)
            # another handle's newer token for one account is this handle's answer
            newer = sign_in(writer, 2)["access_token"]
            home = fake_sts.make_user(2).home_account_id
            found = silent_until(app, home, lambda result: result["access_token"] == newer)
            assert found["access_token"] == newer and sts.posts == 0
            # and what this handle saves, the whole-store handle finds
            sign_in(app, 9)
            nine = fake_sts.make_user(9).home_account_id
            assert silent_until(writer, nine, lambda result: result is not None)["token_source"] == "cache"


def test_app_tokens_in_partition_mode(spec):
    sts = fake_sts.FakeSTS(tag="a")
    with TokenCache(spec, loading="partitions") as cache:
        app = msal.ConfidentialClientApplication(worker.CLIENT_ID, client_credential="not-a-secret",
                                                 authority=HOST + TENANT, token_cache=cache, http_client=sts,
                                                 instance_discovery=False)
        first = app.acquire_token_for_client(["https://graph.microsoft.com/.default"])
        second = app.acquire_token_for_client(["https://graph.microsoft.com/.default"])
        assert second["token_source"] == "cache" and second["access_token"] == first["access_token"]
        assert sts.posts == 1


def test_cache_takes_the_loading_mode_and_refuses_bad_ones(store):
    with tokencache.Cache(store, loading="partitions", partition_limit=1000) as cache:
        assert cache.loading == "partitions"
    with tokencache.Cache(store, options={"loading": "partitions"}) as cache:
        assert cache.loading == "partitions"
    with tokencache.Cache(store) as cache:
        assert cache.loading == "whole_store"
    with pytest.raises(ValueError, match="partition_limit needs loading=\"partitions\""):
        tokencache.Cache(store, partition_limit=10)
    with pytest.raises(ValueError, match="loading must be"):
        tokencache.Cache(store, loading="lazy")
    with pytest.raises(ValueError, match="positive integer"):
        tokencache.Cache(store, loading="partitions", partition_limit=0)
    with pytest.raises(ValueError, match="contradicts"):
        tokencache.Cache(store, loading="partitions", options={"loading": "whole_store"})
    # what the binding does not check, the library does
    with pytest.raises(tokencache.BadInputError, match="partition_limit"):
        tokencache.Cache(store, options={"loading": "partitions", "partition_limit": 1 << 40})
    with pytest.raises(ValueError, match="not both"):
        TokenCache(store, cache=tokencache.Cache(store), loading="partitions")
