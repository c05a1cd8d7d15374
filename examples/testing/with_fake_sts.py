"""Runs an example against an offline identity provider, for CI:

    python with_fake_sts.py EXAMPLE.py [ARGUMENTS...]

EXAMPLE.py's `main(argv, http_client=...)` is called with the fake security token service of the
Python binding's tests (bindings/python/tests/fake_sts.py), extended here with the device-code
flow (the user "approves" at once) and instance discovery. When the example returns, one line of JSON on standard error
says how many requests reached the token endpoints (`{"token_requests": N}`): 0 means everything
came from the cache.
"""

import importlib.util
import json
import os
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("TOKENCACHE_FAKE_STS_DIR",
                                  os.path.join(HERE, "..", "..", "bindings", "python", "tests")))

import fake_sts  # noqa: E402

DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


class DeviceCodeSTS(fake_sts.FakeSTS):
    """FakeSTS, plus a device-authorization endpoint whose device code is an authorization code
    for one made-up user (the device code is redeemed as that code would be)."""

    def __init__(self, user_index=1, **options):
        super().__init__(**options)
        self.user = fake_sts.make_user(user_index)
        self._device_scopes = {}

    def get(self, url, params=None, headers=None, **kwargs):
        # Instance discovery, which MSAL does by default (the aliases of the public cloud's hosts).
        if "/common/discovery/instance" in url:
            self.gets += 1
            return fake_sts.Response(200, {
                "tenant_discovery_endpoint": "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration",
                "api-version": "1.1",
                "metadata": [{"preferred_network": "login.microsoftonline.com", "preferred_cache": "login.windows.net",
                              "aliases": ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com",
                                          "sts.windows.net"]}]})
        return super().get(url, params=params, headers=headers, **kwargs)

    def post(self, url, params=None, data=None, headers=None, **kwargs):
        if isinstance(data, (bytes, str)):
            data = dict(urllib.parse.parse_qsl(data if isinstance(data, str) else data.decode()))
        if url.endswith("/oauth2/v2.0/devicecode"):
            with self._lock:
                self.posts += 1
            code = fake_sts.code_for(self.user)
            # The token request of the flow names no scopes: the identity provider remembers them.
            self._device_scopes[code] = (data or {}).get("scope", "")
            return fake_sts.Response(200, {
                "device_code": code, "user_code": "FAKE-CODE", "verification_uri": "https://microsoft.com/devicelogin",
                "expires_in": 900, "interval": 1,
                "message": "To sign in, open https://microsoft.com/devicelogin and enter FAKE-CODE "
                           "(the offline identity provider approves at once)."})
        if isinstance(data, dict) and data.get("grant_type") == DEVICE_CODE_GRANT:
            data = dict(data, grant_type="authorization_code", code=data["device_code"],
                        scope=self._device_scopes.get(data["device_code"], ""))
        return super().post(url, params=params, data=data, headers=headers, **kwargs)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: python with_fake_sts.py EXAMPLE.py [ARGUMENTS...]")
    path = os.path.abspath(sys.argv[1])
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    sts = DeviceCodeSTS(tag="pid%d" % os.getpid())
    status = example.main(sys.argv[2:], http_client=sts)
    print(json.dumps({"token_requests": sts.posts}), file=sys.stderr)
    sys.exit(status)


if __name__ == "__main__":
    main()
