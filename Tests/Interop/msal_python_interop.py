"""The MSAL Python side of tokencache's interop tests. Runs offline.

    write CACHE MANIFEST   MSAL Python's own TokenCache.add() writes a cache for made-up token
                           responses; MANIFEST lists what an app should then find in it.
    read CACHE MANIFEST    For every case of MANIFEST, a PublicClientApplication over CACHE must list
                           the account (get_accounts) and return the access token from the cache
                           (acquire_token_silent) with the expected secret.

No request leaves the process: the application is given an http_client that answers only the
OpenID configuration request (from a local template) and raises on everything else, so a cache miss
that would make MSAL refresh a token fails the run instead.

Prints one JSON line with what it did; exits 1 with a message on stderr when a check fails.
"""

import base64
import json
import sys
import time

import msal


class OfflineError(Exception):
    pass


class Response:
    def __init__(self, status_code, text):
        self.status_code = status_code
        self.text = text
        self.headers = {}

    def raise_for_status(self):
        if self.status_code >= 400:
            raise OfflineError("HTTP %d" % self.status_code)


class OfflineHttpClient:
    """Serves OpenID configuration documents; every other request is a failure."""

    SUFFIX = "/v2.0/.well-known/openid-configuration"

    def __init__(self):
        self.requests = []

    def get(self, url, params=None, headers=None, **kwargs):
        self.requests.append("GET " + url)
        if url.endswith(self.SUFFIX):
            base = url[: -len(self.SUFFIX)]  # https://<host>/<tenant>
            return Response(200, json.dumps({
                "issuer": base + "/v2.0",
                "authorization_endpoint": base + "/oauth2/v2.0/authorize",
                "token_endpoint": base + "/oauth2/v2.0/token",
                "device_authorization_endpoint": base + "/oauth2/v2.0/devicecode",
            }))
        raise OfflineError("MSAL Python made a network request: GET " + url)

    def post(self, url, params=None, data=None, headers=None, **kwargs):
        self.requests.append("POST " + url)
        raise OfflineError("MSAL Python tried to get a token over the network (cache miss): POST " + url)

    def close(self):
        pass


def b64url(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def id_token(claims):
    return b64url({"alg": "none", "typ": "JWT"}) + "." + b64url(claims) + ".sig"


# Accounts, tenants and apps of the forward test. The home tenant of both users is their utid.
ALICE = {"uid": "7a3c5f10-0000-4000-8000-00000000a11c", "utid": "72f988bf-86f1-41af-91ab-2d7cd011db47",
         "username": "Alice@Contoso.com", "name": "Alice"}
BOB = {"uid": "b0b0b0b0-0000-4000-8000-0000000000b0", "utid": "f645ad92-e38d-4d1a-b510-d1b09a74a8ca",
       "username": "bob@fabrikam.com", "name": "Bob"}
GUEST_TENANT = "49f548d0-12b7-4169-a390-bb5304d24462"
APP = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
FAMILY_APP = "1950a258-227b-4e31-a9cf-717495945fc2"
HOST = "login.microsoftonline.com"


def write(cache_path, manifest_path):
    cache = msal.SerializableTokenCache()
    now = int(time.time())
    cases = []
    plan = [
        (ALICE, ALICE["utid"], APP, ["User.Read", "Mail.Read"], None),
        (ALICE, ALICE["utid"], APP, ["Files.Read"], None),
        (ALICE, GUEST_TENANT, APP, ["Sites.Read.All"], None),
        (ALICE, ALICE["utid"], FAMILY_APP, ["Calendars.Read"], "1"),
        (BOB, BOB["utid"], APP, ["User.Read"], None),
    ]
    for index, (user, tenant, client, scopes, foci) in enumerate(plan):
        secret = "at-%d-%s-%s" % (index, user["uid"][:8], "+/=é")
        claims = {"oid": user["uid"], "sub": "sub-" + user["uid"], "tid": tenant, "name": user["name"],
                  "preferred_username": user["username"], "iss": "https://%s/%s/v2.0" % (HOST, tenant),
                  "aud": client, "exp": now + 3600, "iat": now}
        response = {
            "access_token": secret, "token_type": "Bearer", "expires_in": 3600, "ext_expires_in": 7200,
            "refresh_token": "rt-%d-%s" % (index, user["uid"][:8]), "id_token": id_token(claims),
            "client_info": b64url({"uid": user["uid"], "utid": user["utid"]}), "scope": " ".join(scopes),
        }
        if foci:
            response["foci"] = foci
        cache.add({
            "client_id": client, "scope": scopes, "environment": HOST,
            "token_endpoint": "https://%s/%s/oauth2/v2.0/token" % (HOST, tenant),
            "response": response, "grant_type": "authorization_code",
        }, now=now)
        cases.append({"client_id": client, "authority": "https://%s/%s" % (HOST, tenant),
                      "username": user["username"], "home_account_id": "%s.%s" % (user["uid"], user["utid"]),
                      "scopes": scopes, "secret": secret})
    with open(cache_path, "w") as f:
        f.write(cache.serialize())
    with open(manifest_path, "w") as f:
        json.dump({"cases": cases}, f, indent=2)
    print(json.dumps({"wrote": len(cases), "msal": msal.__version__}))


def read(cache_path, manifest_path):
    with open(manifest_path) as f:
        cases = json.load(f)["cases"]
    cache = msal.SerializableTokenCache()
    with open(cache_path) as f:
        cache.deserialize(f.read())
    found = 0
    for case in cases:
        http = OfflineHttpClient()
        app = msal.PublicClientApplication(
            case["client_id"], authority=case["authority"], token_cache=cache,
            http_client=http, instance_discovery=False)
        accounts = app.get_accounts(username=case["username"])
        if len(accounts) != 1 or accounts[0]["home_account_id"] != case["home_account_id"]:
            fail("get_accounts(%r) for %s gave %r" % (case["username"], case["authority"], accounts))
        try:
            result = app.acquire_token_silent(case["scopes"], account=accounts[0])
        except OfflineError as error:
            fail("acquire_token_silent(%r) for %s: %s" % (case["scopes"], case["username"], error))
        if not result or result.get("access_token") != case["secret"]:
            fail("acquire_token_silent(%r) for %s found %s" % (
                case["scopes"], case["username"], "no token" if not result else "a different token"))
        if result.get("token_source") != "cache":
            fail("the token did not come from the cache: %r" % result.get("token_source"))
        if any(r.startswith("POST") for r in http.requests):
            fail("a token request was made: %r" % http.requests)
        found += 1
    print(json.dumps({"found": found, "msal": msal.__version__}))


def identity(entry):
    """What names an entry in the search comparison: a credential's secret, an account's home
    account id and realm, app metadata's client id and environment."""
    if "secret" in entry:
        return entry["secret"]
    if "authority_type" in entry:
        return "%s/%s" % (entry.get("home_account_id"), entry.get("realm"))
    return "%s/%s" % (entry.get("client_id"), entry.get("environment"))


def search(cache_path, queries_path):
    """MSAL Python's TokenCache.search for each query; prints the identities it yields, sorted."""
    with open(cache_path) as f:
        state = f.read()
    with open(queries_path) as f:
        queries = json.load(f)
    results = []
    for case in queries:
        cache = msal.SerializableTokenCache()
        cache.deserialize(state)  # search deletes expired access tokens: each query starts afresh
        found = cache.search(case["type"], target=case.get("target"), query=case.get("query"), now=case.get("now"))
        results.append(sorted(identity(entry) for entry in found))
    print(json.dumps({"results": results, "msal": msal.__version__}))


def fail(message):
    sys.stderr.write("msal_python_interop: " + message + "\n")
    sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("write", "read", "search"):
        fail("usage: msal_python_interop.py write|read CACHE MANIFEST, or search CACHE QUERIES")
    {"write": write, "read": read, "search": search}[sys.argv[1]](sys.argv[2], sys.argv[3])
