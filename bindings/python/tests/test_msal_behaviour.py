"""tokencache.msal.TokenCache behaves as MSAL Python's own cache, for every MSAL version tested.

Each scenario drives MSAL Python's public API (its apps and its cache's public methods) against a
fake STS twice: once over `msal.SerializableTokenCache`, once over the plugin on a fresh store. The
two runs must record the same trace: what each call returned (token, where it came from, error,
accounts), which requests reached the STS, and the cache's entries as MSAL's `search` lists them
(in the unified schema's form: see msal_entries.as_unified). Scenarios of features an MSAL version
lacks are skipped for it. `scripts/msal-matrix.sh` runs this module against every version.
"""

import json
import time

import msal
import pytest

import fake_sts
import msal_entries
import worker
from tokencache.msal import TokenCache

CLIENT = worker.CLIENT_ID
FAMILY_CLIENT = "1950a258-227b-4e31-a9cf-717495945fc2"
HOST = "https://login.microsoftonline.com/"
TENANT = fake_sts.make_user(0).utid
GUEST_TENANT = "49f548d0-12b7-4169-a390-bb5304d24462"
MSAL_VERSION = tuple(int(part) for part in msal.__version__.split(".")[:2])
ALICE, BOB = fake_sts.make_user(1), fake_sts.make_user(2)


def needs(version, feature):
    if MSAL_VERSION < version:
        pytest.skip("MSAL Python %s has no %s" % (msal.__version__, feature))


class Run:
    """One run of a scenario over one cache: apps share the cache and one fake STS."""

    def __init__(self, cache, is_msal, sts):
        self.cache, self.is_msal, self.sts = cache, is_msal, sts
        self.trace = []
        self._seen = 0

    def public(self, client_id=CLIENT, authority=HOST + "organizations", **options):
        options.setdefault("instance_discovery", False)
        return msal.PublicClientApplication(client_id, authority=authority, token_cache=self.cache,
                                            http_client=self.sts, **options)

    def confidential(self, client_id=CLIENT, authority=HOST + TENANT, **options):
        options.setdefault("instance_discovery", False)
        return msal.ConfidentialClientApplication(
            client_id, client_credential="not-a-secret", authority=authority, token_cache=self.cache,
            http_client=self.sts, **options)

    def requests(self):
        """The STS requests since the last note. A refresh token is compared by whose it is (the
        fake STS names its user): the store keeps one per app and account, the newest, where MSAL
        keeps a copy per scope set and may send an older one (docs/python.md, "Limits")."""
        new = [dict(r) for r in self.sts.requests[self._seen:]]
        self._seen = len(self.sts.requests)
        for request in new:
            if "refresh_token" in request:
                request["refresh_token"] = "refresh token of " + request["refresh_token"].rsplit("-", 1)[-1]
        return new

    def note(self, label, result):
        """Records what a call returned and the requests it made."""
        self.trace.append((label, summary(result), self.requests()))
        return result

    def record(self, label, value):
        """Records a value as it is."""
        self.trace.append((label, value, self.requests()))

    def accounts(self, label, app, **filters):
        found = app.get_accounts(**filters)
        self.trace.append((label, sorted((a["home_account_id"], a["environment"], a["realm"], a["username"],
                                          a.get("account_source")) for a in found), self.requests()))
        return found

    def snapshot(self, label):
        """Records the cache's entries as MSAL's search lists them."""
        found = msal_entries.entries(self.cache)
        if self.is_msal:
            found = msal_entries.as_unified(found)
        else:
            found = dict(found, RefreshToken=msal_entries.one_refresh_token_per_app(found["RefreshToken"]))
        self.trace.append((label, found))


def summary(result):
    """What a test compares of a call's result: time-dependent members only as present or not."""
    if result is None or isinstance(result, (str, int, bool)):
        return result
    if isinstance(result, list):
        return [summary(r) for r in result]
    picked = {k: result.get(k) for k in ("access_token", "token_source", "error", "token_type", "scope") if k in result}
    picked["has_refresh_on"] = "refresh_on" in result
    if "id_token_claims" in result:
        picked["oid"] = result["id_token_claims"].get("oid")
    return picked


def compare(scenario, store, monkeypatch, sts_options=None):
    """Runs `scenario` over MSAL's cache and over the plugin; their traces must be equal. Both runs
    see one instant (`time.time`, which MSAL and the fake STS read), so timestamps compare too."""
    traces = []
    now = float(int(time.time()))
    monkeypatch.setattr(time, "time", lambda: now)
    for is_msal in (True, False):
        cache = msal.SerializableTokenCache() if is_msal else TokenCache(store)
        run = Run(cache, is_msal, fake_sts.FakeSTS(tag="b", **(sts_options or {})))
        scenario(run)
        run.snapshot("end")
        if not is_msal:
            cache.close()
        traces.append(run.trace)
    expected, actual = traces
    for step, (want, got) in enumerate(zip(expected, actual)):
        assert got == want, "step %d (%s) differs:\nMSAL:       %s\ntokencache: %s" % (
            step, want[0], json.dumps(want[1:], sort_keys=True), json.dumps(got[1:], sort_keys=True))
    assert len(actual) == len(expected)
    return expected


def sign_in(run, app, user, scopes=("User.Read",)):
    return run.note("sign in " + user.username, app.acquire_token_by_authorization_code(
        fake_sts.code_for(user), list(scopes), redirect_uri=worker.REDIRECT))


def account_of(app, user):
    return next(a for a in app.get_accounts() if a["username"] == user.username)


# MARK: - Scenarios


def public_client_silent(run):
    app = run.public()
    sign_in(run, app, ALICE, ["User.Read", "Mail.Read"])
    sign_in(run, app, BOB)
    run.accounts("accounts", app)
    run.accounts("accounts by username", app, username=BOB.username)
    alice = account_of(app, ALICE)
    run.note("same scopes", app.acquire_token_silent(["User.Read", "Mail.Read"], account=alice))
    run.note("a subset, other case", app.acquire_token_silent(["user.read"], account=alice))
    run.note("new scope: refresh token", app.acquire_token_silent(["Files.Read"], account=alice))
    run.note("new scope again: cache", app.acquire_token_silent(["Files.Read"], account=alice))
    run.note("force refresh", app.acquire_token_silent(["User.Read"], account=alice, force_refresh=True))
    run.note("with error", app.acquire_token_silent_with_error(["User.Read"], account=account_of(app, BOB)))


def tenants(run):
    home, guest = run.public(authority=HOST + "organizations"), run.public(authority=HOST + GUEST_TENANT)
    sign_in(run, home, ALICE)
    alice = account_of(home, ALICE)
    run.note("guest tenant: refresh token", guest.acquire_token_silent(["User.Read"], account=alice))
    run.note("guest tenant: cache", guest.acquire_token_silent(["User.Read"], account=alice))
    run.note("home tenant: cache", home.acquire_token_silent(["User.Read"], account=alice))
    run.accounts("accounts", home)


def expired_access_token(run):
    app = run.public()
    sign_in(run, app, ALICE)
    alice = account_of(app, ALICE)
    # expires_in 120 s: within MSAL's five minutes, so every silent call refreshes
    run.note("expired: refresh", app.acquire_token_silent(["User.Read"], account=alice))
    run.note("expired again: refresh", app.acquire_token_silent(["User.Read"], account=alice))


def refresh_on_due(run):
    app = run.public()
    sign_in(run, app, ALICE)
    alice = account_of(app, ALICE)
    run.note("refresh_on passed: refresh", app.acquire_token_silent(["User.Read"], account=alice))


def refresh_on_later(run):
    app = run.public()
    sign_in(run, app, ALICE)
    alice = account_of(app, ALICE)
    run.note("refresh_on ahead: cache", app.acquire_token_silent(["User.Read"], account=alice))
    token = next(run.cache.search("AccessToken", query={"home_account_id": ALICE.home_account_id}))
    # MSAL's own query for the entry, with the members as MSAL recorded them
    query = {k: token[k] for k in ("home_account_id", "environment", "client_id", "realm", "refresh_on")}
    run.record("search by refresh_on", [e["secret"] for e in run.cache.search("AccessToken", ["User.Read"], query=query)])


def family_of_client_ids(run):
    first, second = run.public(CLIENT), run.public(FAMILY_CLIENT)
    sign_in(run, first, ALICE)
    run.accounts("the family app's accounts", second)
    alice = account_of(first, ALICE)
    run.note("family app: family refresh token", second.acquire_token_silent(["Files.Read"], account=alice))
    run.note("family app: cache", second.acquire_token_silent(["Files.Read"], account=alice))
    run.note("first app: cache", first.acquire_token_silent(["User.Read"], account=alice))


def authority_aliases(run):
    primary = run.public(authority=HOST + TENANT, instance_discovery=True)
    alias = run.public(authority="https://login.windows.net/" + TENANT, instance_discovery=True)
    sign_in(run, primary, ALICE)
    run.accounts("accounts through the alias", alias)
    alice = account_of(primary, ALICE)
    run.note("alias: silent", alias.acquire_token_silent(["User.Read"], account=alice))
    run.note("primary: silent", primary.acquire_token_silent(["User.Read"], account=alice))


def remove_account(run):
    app, family = run.public(), run.public(FAMILY_CLIENT)
    sign_in(run, app, ALICE)
    sign_in(run, app, BOB)
    sign_in(run, family, ALICE)
    app.remove_account(account_of(app, ALICE))
    run.accounts("after remove_account", app)
    run.accounts("the other app's", family)
    run.snapshot("after remove_account")
    run.note("removed account: no token", app.acquire_token_silent(["User.Read"], account={
        "home_account_id": ALICE.home_account_id, "environment": "login.microsoftonline.com"}))
    run.note("other account: cache", app.acquire_token_silent(["User.Read"], account=account_of(app, BOB)))


def app_tokens(run):
    app, other = run.confidential(), run.confidential(FAMILY_CLIENT)
    graph, vault = ["https://graph.microsoft.com/.default"], ["https://vault.azure.net/.default"]
    run.note("first", app.acquire_token_for_client(graph))
    run.note("cache", app.acquire_token_for_client(graph))
    run.note("other resource", app.acquire_token_for_client(vault))
    run.note("other client", other.acquire_token_for_client(graph))
    app.remove_tokens_for_client()
    run.snapshot("after remove_tokens_for_client")
    run.note("after removal", app.acquire_token_for_client(graph))
    run.note("other client: cache", other.acquire_token_for_client(graph))


def fmi_paths(run):
    needs((1, 36), "fmi_path")
    app = run.confidential()
    scopes = ["api://AzureFMITokenExchange/.default"]
    run.note("path A", app.acquire_token_for_client(scopes, fmi_path="A/one"))
    run.note("path B", app.acquire_token_for_client(scopes, fmi_path="B/two"))
    run.note("path A: cache", app.acquire_token_for_client(scopes, fmi_path="A/one"))
    run.note("path B: cache", app.acquire_token_for_client(scopes, fmi_path="B/two"))
    run.note("no path", app.acquire_token_for_client(scopes))
    run.note("no path: cache", app.acquire_token_for_client(scopes))
    run.record("search without ext_cache_key", [e["secret"] for e in run.cache.search(
        "AccessToken", query={"client_id": CLIENT, "home_account_id": None})])


def forwarded_client_claims(run):
    needs((1, 38), "forwarded_client_claims")
    app = run.confidential()
    scopes = ["https://graph.microsoft.com/.default"]
    first, second = json.dumps({"xms_az_nwperimid": ["A"]}), json.dumps({"xms_az_nwperimid": ["B"]})
    run.note("claims A", app.acquire_token_for_client(scopes, forwarded_client_claims=first))
    run.note("claims B", app.acquire_token_for_client(scopes, forwarded_client_claims=second))
    run.note("claims A: cache", app.acquire_token_for_client(scopes, forwarded_client_claims=first))
    run.note("no claims", app.acquire_token_for_client(scopes))
    run.note("no claims: cache", app.acquire_token_for_client(scopes))


def on_behalf_of(run):
    app = run.confidential(CLIENT, authority=HOST + TENANT)
    run.note("OBO alice", app.acquire_token_on_behalf_of(fake_sts.assertion_for(ALICE), ["User.Read"]))
    run.note("OBO bob", app.acquire_token_on_behalf_of(fake_sts.assertion_for(BOB), ["User.Read"]))
    run.accounts("accounts", app)
    alice = account_of(app, ALICE)
    run.note("silent after OBO: cache", app.acquire_token_silent(["User.Read"], account=alice))
    run.note("silent new scope: refresh", app.acquire_token_silent(["Mail.Read"], account=alice))
    if MSAL_VERSION >= (1, 38):
        claims = json.dumps({"xms_az_nwperimid": ["A"]})
        run.note("OBO with claims", app.acquire_token_on_behalf_of(
            fake_sts.assertion_for(ALICE), ["Files.Read"], forwarded_client_claims=claims))
        run.note("silent with claims: cache", app.acquire_token_silent(
            ["Files.Read"], account=alice, forwarded_client_claims=claims))
        run.note("silent without claims", app.acquire_token_silent(["Files.Read"], account=alice))


def user_federated_identity_credential(run):
    needs((1, 37), "acquire_token_by_user_federated_identity_credential")
    app = run.confidential(CLIENT, authority=HOST + TENANT)
    run.note("user FIC", app.acquire_token_by_user_federated_identity_credential(
        ["User.Read"], fake_sts.assertion_for(ALICE), username=ALICE.username))
    run.accounts("accounts", app)
    run.note("silent: cache", app.acquire_token_silent(["User.Read"], account=account_of(app, ALICE)))


def refresh_token_grant(run):
    app = run.public()
    sign_in(run, app, ALICE)
    rt = next(run.cache.search("RefreshToken", query={"home_account_id": ALICE.home_account_id}))["secret"]
    run.note("acquire_token_by_refresh_token", app.acquire_token_by_refresh_token(rt, ["Files.Read"]))
    run.accounts("accounts", app)
    run.note("silent: cache", app.acquire_token_silent(["Files.Read"], account=account_of(app, ALICE)))


def sovereign_clouds(run):
    public, government = run.public(), run.public(authority="https://login.microsoftonline.us/organizations")
    sign_in(run, public, ALICE)
    sign_in(run, government, BOB)
    run.accounts("public cloud app", public)
    run.accounts("government cloud app", government)
    run.note("government: cache", government.acquire_token_silent(["User.Read"], account=account_of(government, BOB)))
    run.note("public: cache", public.acquire_token_silent(["User.Read"], account=account_of(public, ALICE)))


def ssh_certificates(run):
    app = run.public()
    sign_in(run, app, ALICE)
    alice = account_of(app, ALICE)
    scopes = ["https://pas.windows.net/CheckMyAccess/Linux/.default"]
    ssh = lambda kid: {"token_type": "ssh-cert", "key_id": kid, "req_cnf": json.dumps({"kid": kid})}  # noqa: E731
    run.note("certificate for key 1", app.acquire_token_silent(scopes, account=alice, data=ssh("key1")))
    run.note("key 1: cache", app.acquire_token_silent(scopes, account=alice, data=ssh("key1")))
    run.note("certificate for key 2", app.acquire_token_silent(scopes, account=alice, data=ssh("key2")))
    run.note("key 1 again", app.acquire_token_silent(scopes, account=alice, data=ssh("key1")))
    run.note("bearer token for the scope", app.acquire_token_silent(scopes, account=alice))


def token_cache_methods(run):
    """The cache's own public methods, called as an app (or msal-extensions) calls them."""
    cache = run.cache
    app = run.public()
    sign_in(run, app, ALICE, ["User.Read", "Mail.Read"])
    sign_in(run, run.public(FAMILY_CLIENT), BOB)
    search = lambda *a, **k: sorted(  # noqa: E731
        json.dumps(msal_entries.unified_entry(e), sort_keys=True) for e in cache.search(*a, **k))
    run.record("search target", search("AccessToken", ["Mail.Read"]))
    run.record("search target, other case", search("AccessToken", ["mail.read"]))
    run.record("search target and query", search("AccessToken", ["User.Read"], query={
        "home_account_id": ALICE.home_account_id, "environment": "login.microsoftonline.com",
        "client_id": CLIENT, "realm": "organizations"}))
    run.record("search query", search("RefreshToken", query={"client_id": FAMILY_CLIENT}))
    run.record("search environment in upper case", len(search("Account", query={"environment": "LOGIN.microsoftonline.com"})))
    run.record("search app metadata", search("AppMetadata", query={"client_id": CLIENT}))
    with pytest.warns(DeprecationWarning):
        run.record("find", sorted(json.dumps(msal_entries.unified_entry(e), sort_keys=True) for e in cache.find("IdToken", query={"realm": "organizations"})))
    rt = next(cache.search("RefreshToken", query={"home_account_id": ALICE.home_account_id, "client_id": CLIENT}))
    cache.update_rt(rt, "rt-replaced")
    run.record("update_rt", [e["secret"] for e in cache.search("RefreshToken", query={"client_id": CLIENT})])
    cache.remove_at(next(cache.search("AccessToken", query={"home_account_id": ALICE.home_account_id})))
    cache.remove_idt(next(cache.search("IdToken", query={"home_account_id": BOB.home_account_id})))
    cache.remove_rt(next(cache.search("RefreshToken", query={"home_account_id": BOB.home_account_id})))
    cache.remove_account(next(cache.search("Account", query={"home_account_id": BOB.home_account_id})))
    run.snapshot("after the removals")
    run.note("silent after remove_at: refresh", app.acquire_token_silent(["User.Read"], account=account_of(app, ALICE)))
    fresh = msal.SerializableTokenCache()
    fresh.deserialize(cache.serialize())
    run.record("serialize, read by MSAL's cache", msal_entries.as_unified(msal_entries.entries(fresh)))


SCENARIOS = {
    "public client: sign-in, silent, refresh token, force refresh": (public_client_silent, None),
    "tenants: home and guest": (tenants, None),
    "an access token within five minutes of expiry is refreshed": (expired_access_token, {"expires_in": 120}),
    "refresh_on passed: refreshed": (refresh_on_due, {"refresh_in": -60}),
    "refresh_on ahead: served, found by its refresh_on": (refresh_on_later, {"refresh_in": 1800}),
    "family of client ids": (family_of_client_ids, {"foci": "1"}),
    "authority aliases": (authority_aliases, None),
    "remove_account": (remove_account, {"foci": "1"}),
    "app tokens and remove_tokens_for_client": (app_tokens, None),
    "fmi_path: each path its own token": (fmi_paths, None),
    "forwarded client claims: each its own token": (forwarded_client_claims, None),
    "on-behalf-of": (on_behalf_of, None),
    "user federated identity credential": (user_federated_identity_credential, None),
    "acquire_token_by_refresh_token": (refresh_token_grant, None),
    "sovereign clouds": (sovereign_clouds, None),
    "SSH certificates (token_type, key_id)": (ssh_certificates, None),
    "TokenCache methods": (token_cache_methods, None),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_plugin_behaves_as_msal_own_cache(name, store, monkeypatch):
    scenario, sts_options = SCENARIOS[name]
    compare(scenario, store, monkeypatch, sts_options)


def test_has_state_changed_stays_false_after_add_the_one_deliberate_difference(store):
    ours, theirs = TokenCache(store), msal.SerializableTokenCache()
    for cache in (ours, theirs):
        sign_in(Run(cache, cache is theirs, fake_sts.FakeSTS()), msal.PublicClientApplication(
            CLIENT, authority=HOST + "organizations", token_cache=cache, http_client=fake_sts.FakeSTS(),
            instance_discovery=False), ALICE)
    assert theirs.has_state_changed is True
    assert ours.has_state_changed is False
    ours.close()


def test_a_patched_msal_token_cache_class_does_not_recurse(store, monkeypatch):
    monkeypatch.setattr(msal, "TokenCache", TokenCache)
    monkeypatch.setattr(msal, "SerializableTokenCache", TokenCache)
    with TokenCache(store) as cache:
        sts = fake_sts.FakeSTS()
        app = msal.PublicClientApplication(CLIENT, authority=HOST + "organizations", token_cache=cache,
                                           http_client=sts, instance_discovery=False)
        app.acquire_token_by_authorization_code(fake_sts.code_for(ALICE), ["User.Read"], redirect_uri=worker.REDIRECT)
        found = app.acquire_token_silent(["User.Read"], account=app.get_accounts()[0])
        assert found["token_source"] == "cache" and sts.posts == 1


def test_tokens_with_an_extended_key_are_items_of_their_own(store):
    from tokencache import Cache
    needs((1, 36), "fmi_path")
    with TokenCache(store) as cache:
        app = msal.ConfidentialClientApplication(
            CLIENT, client_credential="not-a-secret", authority=HOST + TENANT, token_cache=cache,
            http_client=fake_sts.FakeSTS(), instance_discovery=False)
        for path in (None, "A/one", "B/two"):
            app.acquire_token_for_client(["api://x/.default"], **({"fmi_path": path} if path else {}))
    with Cache(store) as plain:
        tokens = json.loads(plain.export_msal_json())["AccessToken"]
    assert sorted(bool(t.get("ext_cache_key")) for t in tokens.values()) == [False, True, True]
