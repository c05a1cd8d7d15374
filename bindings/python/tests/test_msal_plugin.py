"""tokencache.msal.TokenCache with the real MSAL Python (pinned), offline (fake_sts.FakeSTS)."""

import time

import msal
import pytest

import fake_sts
import worker
from tokencache import Cache
from tokencache import msal_versions
from tokencache.msal import (
    PersistedTokenCache, TokenCache, UnsupportedMSALVersionError, UntestedMSALVersionWarning, _check_msal_version)

TYPES = ("AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata")
OTHER_CLIENT = "1950a258-227b-4e31-a9cf-717495945fc2"


def entries(cache):
    """Every entry of a cache, per credential type, as MSAL's own search lists them."""
    return {t: sorted(cache.search(t), key=lambda e: sorted(e.items())) for t in TYPES}


def as_unified(by_type):
    """MSAL Python's entries as the unified schema keeps them, which the store follows (the
    differences are listed in docs/python.md, "Limits"):
    - an access token's `token_type` "Bearer" is the schema's default and not stored; its
      `extended_expires_on` is also given as `ext_expires_on`, MSAL.NET's spelling;
    - one refresh token per (home account, environment, client, family): MSAL Python keys its
      refresh tokens by target too, and its per-target entries of one app collapse to the newest.
    """
    result = dict(by_type)
    tokens = []
    for entry in by_type["AccessToken"]:
        entry = dict(entry)
        if entry.get("token_type", "").lower() == "bearer":
            del entry["token_type"]
        entry["ext_expires_on"] = entry["extended_expires_on"]
        tokens.append(entry)
    result["AccessToken"] = sorted(tokens, key=lambda e: sorted(e.items()))
    newest = {}
    for entry in by_type["RefreshToken"]:
        identity = tuple(entry.get(k, "").lower() for k in ("home_account_id", "environment", "client_id", "family_id"))
        if identity not in newest or int(entry.get("last_modification_time", 0)) >= int(newest[identity].get("last_modification_time", 0)):
            newest[identity] = entry
    result["RefreshToken"] = sorted(newest.values(), key=lambda e: sorted(e.items()))
    return result


def events(now):
    """Token responses as MSAL Python hands them to TokenCache.add: two users, a guest tenant,
    a family app, an ADFS-style authority and a response without a refresh token."""
    alice, bob = fake_sts.make_user(1), fake_sts.make_user(2, tenant="f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
    plan = [
        (alice, "organizations", worker.CLIENT_ID, ["User.Read", "Mail.Read"], {}),
        (alice, "49f548d0-12b7-4169-a390-bb5304d24462", worker.CLIENT_ID, ["Files.Read"], {}),
        (alice, alice.utid, OTHER_CLIENT, ["Calendars.Read"], {"foci": "1"}),
        (bob, "organizations", worker.CLIENT_ID, ["User.Read"], {"refresh_in": 1800}),
        (bob, bob.utid, worker.CLIENT_ID, ["Sites.Read.All"], {"no_refresh_token": True}),
    ]
    for index, (user, tenant, client, scopes, extra) in enumerate(plan):
        sts = fake_sts.FakeSTS(tag="e%d" % index)
        response = sts.post(
            "https://login.microsoftonline.com/%s/oauth2/v2.0/token" % tenant,
            data={"grant_type": "authorization_code", "code": fake_sts.code_for(user), "client_id": client,
                  "scope": " ".join(scopes)})
        body = __import__("json").loads(response.text)
        if extra.pop("no_refresh_token", False):
            del body["refresh_token"]
        body.update(extra)
        yield {"client_id": client, "scope": scopes, "environment": "login.microsoftonline.com",
               "token_endpoint": "https://login.microsoftonline.com/%s/oauth2/v2.0/token" % tenant,
               "response": body, "data": {"scope": scopes}, "grant_type": "authorization_code"}


def test_the_plugin_stores_exactly_the_entries_msal_writes_one_batch_per_response(store):
    now = int(time.time())
    plugin, reference = TokenCache(), msal.SerializableTokenCache()
    batches = []
    write = plugin._write
    plugin._write = lambda operations: (batches.append(len(operations)), write(operations))[1]
    for event in events(now):
        plugin.add(dict(event), now=now)
        reference.add(dict(event), now=now)
    assert batches == [5, 5, 5, 5, 4]
    assert entries(plugin) == as_unified(entries(reference))
    # and a second handle on the same store (what another process sees) finds the same entries
    with TokenCache() as other:
        assert entries(other) == as_unified(entries(reference))


def test_a_process_started_afterwards_gets_silent_hits_for_every_account_with_no_http(store, spawn):
    first = spawn("plugin", store, "first")
    acquired = first.call("acquire", users=list(range(6)), scopes=["User.Read", "Mail.Read"])
    listed = first.call("silent", scopes=["User.Read"])
    first.quit()

    second = spawn("plugin", store, "second")
    found = second.call("silent", scopes=["User.Read", "Mail.Read"])
    assert found["posts"] == 0
    assert found["tokens"] == acquired["tokens"]
    assert len(found["accounts"]) == 6
    assert found["accounts"] == listed["accounts"]


def test_two_long_lived_processes_share_tokens_live(store, spawn):
    one, two = spawn("plugin", store, "one"), spawn("plugin", store, "two")
    assert one.call("silent", scopes=["User.Read"])["accounts"] == []
    saved = two.call("acquire", users=[7], scopes=["User.Read"])["tokens"]
    seen = one.call("silent", scopes=["User.Read"])
    assert seen["tokens"] == saved and seen["posts"] == 0
    # a newer token for the same account and scopes, saved by the first, is the second's next answer
    newer = one.call("acquire", users=[7], scopes=["User.Read"])["tokens"]
    assert newer != saved
    assert two.call("silent", scopes=["User.Read"])["tokens"] == newer


def test_remove_account_removes_what_msal_removes(store):
    now = int(time.time())
    plugin, reference = TokenCache(), msal.SerializableTokenCache()
    responses = list(events(now))  # once: the ID tokens the fake STS mints carry the time
    for cache in (plugin, reference):
        app = msal.PublicClientApplication(
            worker.CLIENT_ID, authority=worker.AUTHORITY, token_cache=cache,
            http_client=fake_sts.FakeSTS(), instance_discovery=False)
        for event in responses:
            cache.add(dict(event), now=now)
        alice = [a for a in app.get_accounts() if a["username"] == "user1@contoso.com"]
        assert len(alice) == 1
        app.remove_account(alice[0])
        assert [a["username"] for a in app.get_accounts()] == ["user2@contoso.com"]
    assert entries(plugin) == as_unified(entries(reference))
    with Cache() as fresh:  # what the store holds, read by another handle
        left = {t: fresh.msal_search(t) for t in TYPES}
    assert not [e for t in ("AccessToken", "IdToken", "Account") for e in left[t]
                if e["home_account_id"] == fake_sts.make_user(1).home_account_id]
    # the family app's refresh token stays: it is not this app's (MSAL keeps it too)
    assert [e["client_id"] for e in left["RefreshToken"] if e["home_account_id"] == fake_sts.make_user(1).home_account_id] == [OTHER_CLIENT]


def test_a_confidential_client_caches_app_tokens(store):
    sts = fake_sts.FakeSTS()
    app = msal.ConfidentialClientApplication(
        worker.CLIENT_ID, client_credential="not-a-secret", authority="https://login.microsoftonline.com/" + fake_sts.make_user(0).utid,
        token_cache=TokenCache(), http_client=sts, instance_discovery=False)
    first = app.acquire_token_for_client(["https://graph.microsoft.com/.default"])
    second = app.acquire_token_for_client(["https://graph.microsoft.com/.default"])
    assert first["token_source"] == "identity_provider" and second["token_source"] == "cache"
    assert second["access_token"] == first["access_token"] and sts.posts == 1


def test_persisted_token_cache_takes_msal_extensions_constructor(store, tmp_path):
    FilePersistence = pytest.importorskip("msal_extensions").FilePersistence
    persistence = FilePersistence(str(tmp_path / "msal_cache.json"))
    cache = PersistedTokenCache(persistence)
    sts = fake_sts.FakeSTS()
    app = msal.PublicClientApplication(worker.CLIENT_ID, authority=worker.AUTHORITY, token_cache=cache,
                                       http_client=sts, instance_discovery=False)
    user = fake_sts.make_user(3)
    app.acquire_token_by_authorization_code(fake_sts.code_for(user), ["User.Read"], redirect_uri=worker.REDIRECT)
    assert app.acquire_token_silent(["User.Read"], account=app.get_accounts()[0])["token_source"] == "cache"
    assert not (tmp_path / "msal_cache.json").exists(), "the persistence file is not used"
    with Cache() as fresh:  # the default store (TOKENCACHE_STORE) holds the tokens
        assert [a["username"] for a in fresh.msal_search("Account")] == [user.username]


def test_tested_versions_are_accepted_newer_ones_warned_about_once_others_refused(store, monkeypatch):
    for version in ("1.31.0", "1.31.1", "1.35.0", "1.39.0", "1.39.2"):
        _check_msal_version(version)
    with pytest.raises(UnsupportedMSALVersionError, match=r"supports MSAL Python 1\.31\.1 to 1\.39\.0 .*this is 1\.30\.0"):
        _check_msal_version("1.30.0")
    monkeypatch.setattr(msal_versions, "_warned", False)
    with pytest.warns(UntestedMSALVersionWarning, match=r"tested with MSAL Python 1\.31\.1 to 1\.39\.0; this is 1\.40\.0"):
        _check_msal_version("1.40.0")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _check_msal_version("1.41.0")  # once per process
    monkeypatch.setattr(msal, "__version__", "2.0.0")
    with pytest.raises(UnsupportedMSALVersionError, match="this is 2.0.0"):
        TokenCache()
