"""An offline security token service for MSAL Python: the `http_client` the tests and the benchmark
give `PublicClientApplication` / `ConfidentialClientApplication`.

It serves the OpenID configuration document of any authority, and a token endpoint that mints a
token response for an authorization code (`code_for(user)`), a user assertion of on-behalf-of or of
a user federated identity credential (`assertion_for(user)`), client credentials, or a refresh
token it issued or was told about (`accept_refresh_token`). Every POST is counted and logged
(`requests`: grant type, host, tenant, scopes and the extra parameters that key tokens apart), so a
test can say "zero HTTP calls" or compare what two runs asked for.
"""

import base64
import itertools
import json
import threading
import time
import urllib.parse

RESERVED_SCOPES = {"openid", "profile", "offline_access"}
#: The public cloud's hosts, as instance discovery lists them.
ALIASES = ("login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net")


class User:
    """A signed-in user: the ids a token response carries."""

    def __init__(self, uid, utid, username, name=None):
        self.uid, self.utid, self.username = uid, utid, username
        self.name = name or username.split("@")[0]

    @property
    def home_account_id(self):
        return "%s.%s" % (self.uid, self.utid)


def make_user(index, tenant="72f988bf-86f1-41af-91ab-2d7cd011db47"):
    return User("%08x-0000-4000-8000-%012x" % (index, index), tenant, "user%d@contoso.com" % index)


def b64url(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def code_for(user):
    """An authorization code the fake STS redeems for `user`."""
    return "code." + b64url({"uid": user.uid, "utid": user.utid, "username": user.username, "name": user.name})


def assertion_for(user):
    """A user assertion (on-behalf-of, user FIC) the fake STS accepts for `user`."""
    return "assertion." + b64url({"uid": user.uid, "utid": user.utid, "username": user.username, "name": user.name})


def _user_in(text, prefix):
    claims = json.loads(base64.urlsafe_b64decode(text[len(prefix):] + "==").decode())
    return User(claims["uid"], claims["utid"], claims["username"], claims["name"])


#: Request parameters logged as they are (the rest are credentials or vary per run).
LOGGED = ("grant_type", "scope", "fmi_path", "client_claims", "claims", "requested_token_use", "token_type", "key_id")


class Response:
    def __init__(self, status_code, body):
        self.status_code = status_code
        self.text = json.dumps(body)
        self.headers = {}

    def raise_for_status(self):
        if self.status_code >= 400:
            raise RuntimeError("HTTP %d" % self.status_code)


class FakeSTS:
    """Answers MSAL Python's requests in-process; no request leaves the process."""

    CONFIG = "/v2.0/.well-known/openid-configuration"

    def __init__(self, tag="t", expires_in=3600, refresh_in=None, foci=None):
        self.tag = tag
        self.expires_in = expires_in
        self.refresh_in = refresh_in  # given in every token response when set
        self.foci = foci  # the family id given in user token responses when set
        self.requests = []  # one dict per POST: what it asked for (no secrets)
        self.posts = 0
        self.gets = 0
        self._serial = itertools.count(1)
        self._refresh_tokens = {}  # refresh token -> User
        self._lock = threading.Lock()

    def accept_refresh_token(self, refresh_token, user):
        """Makes a refresh token issued elsewhere (an imported cache's) redeemable for `user`."""
        self._refresh_tokens[refresh_token] = user

    def get(self, url, params=None, headers=None, **kwargs):
        self.gets += 1
        if url.endswith(self.CONFIG):
            base = url[: -len(self.CONFIG)]
            return Response(200, {
                "issuer": base + "/v2.0",
                "authorization_endpoint": base + "/oauth2/v2.0/authorize",
                "token_endpoint": base + "/oauth2/v2.0/token",
                "device_authorization_endpoint": base + "/oauth2/v2.0/devicecode",
            })
        if "/discovery/instance" in url:  # instance discovery: the public cloud's aliases
            return Response(200, {
                "tenant_discovery_endpoint": "https://login.microsoftonline.com/common/v2.0" + self.CONFIG[5:],
                "metadata": [{"preferred_network": "login.microsoftonline.com", "preferred_cache": "login.windows.net",
                              "aliases": list(ALIASES)}]})
        raise RuntimeError("unexpected GET " + url)

    def post(self, url, params=None, data=None, headers=None, **kwargs):
        with self._lock:
            self.posts += 1
            serial = next(self._serial)
        if isinstance(data, (bytes, str)):
            data = dict(urllib.parse.parse_qsl(data if isinstance(data, str) else data.decode()))
        data = data or {}
        grant = data.get("grant_type")
        logged = {k: data[k] for k in LOGGED if data.get(k)}
        logged.update(host=url.split("/")[2], tenant=url.split("/")[3])
        if grant == "refresh_token":
            logged["refresh_token"] = data.get("refresh_token")  # made up here: no secret
        with self._lock:
            self.requests.append(logged)
        extra = {} if self.refresh_in is None else {"refresh_in": self.refresh_in}
        if grant == "authorization_code":
            user = _user_in(data["code"], "code.")
        elif grant in ("urn:ietf:params:oauth:grant-type:jwt-bearer", "user_fic"):
            assertion = data.get("assertion") or data.get("user_federated_identity_credential") or ""
            if not assertion.startswith("assertion."):
                return Response(400, {"error": "invalid_grant", "error_description": "unknown assertion"})
            user = _user_in(assertion, "assertion.")
        elif grant == "client_credentials":
            return Response(200, dict(extra, token_type="Bearer", expires_in=self.expires_in,
                                      access_token="app-at-%s-%d" % (self.tag, serial)))
        elif grant == "refresh_token":
            user = self._refresh_tokens.get(data.get("refresh_token"))
            if user is None:
                return Response(400, {"error": "invalid_grant", "error_description": "unknown refresh token"})
        else:
            return Response(400, {"error": "unsupported_grant_type"})
        tenant = url.split("/")[3]
        tenant = user.utid if tenant in ("common", "organizations", "consumers") else tenant
        scopes = [s for s in data.get("scope", "").split() if s not in RESERVED_SCOPES]
        now = int(time.time())
        host = url.split("/")[2]
        refresh_token = "rt-%s-%d-%s" % (self.tag, serial, user.uid[:8])
        self._refresh_tokens[refresh_token] = user
        if self.foci:
            extra["foci"] = self.foci
        return Response(200, dict(extra, **{
            "token_type": data.get("token_type") or "Bearer",  # ssh-cert when asked for one
            "scope": " ".join(scopes),
            "expires_in": self.expires_in,
            "ext_expires_in": self.expires_in,
            "access_token": "at-%s-%d-%s" % (self.tag, serial, user.uid[:8]),
            "refresh_token": refresh_token,
            "id_token": b64url({"alg": "none", "typ": "JWT"}) + "." + b64url({
                "aud": data.get("client_id"), "iss": "https://%s/%s/v2.0" % (host, tenant),
                "iat": now, "nbf": now, "exp": now + 3600, "name": user.name, "oid": user.uid,
                "preferred_username": user.username, "sub": "sub-" + user.uid, "tid": tenant,
                "ver": "2.0"}) + ".sig",
            "client_info": b64url({"uid": user.uid, "utid": user.utid}),
        }))

    def close(self):
        pass
