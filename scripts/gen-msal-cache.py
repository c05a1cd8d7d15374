#!/usr/bin/env python3
"""Writes an MSAL JSON cache of many tiny entries, for measuring imports at scale.

Usage: scripts/gen-msal-cache.py ITEMS OUTPUT

Per account: one Account, one IdToken, one RefreshToken and seven AccessTokens (ten items), with
short made-up secrets and short entry keys (the importer keys items by their fields), until ITEMS entries are written. A million items is about 170 MB and about 7.6 million JSON values, under the 8 million a
whole-document parse accepts (access tokens carry no expiry, to stay under it), so the file also
imports through the whole read (see docs/scaling.md, "Large imports"). The
content is synthetic and fixed by ITEMS (no randomness), so runs compare.
"""
import json
import sys


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    total = int(sys.argv[1])
    out = sys.argv[2]
    env = "login.windows.net"
    client = "c1"
    realm = "t1"
    sections = {"AccessToken": {}, "RefreshToken": {}, "IdToken": {}, "Account": {}, "AppMetadata": {}}
    written = 0
    account = 0
    while written < total:
        home = f"u{account:x}.{realm}"
        def add(section, key, entry):
            nonlocal written
            if written < total:
                sections[section][key] = entry
                written += 1
        add("Account", f"a{account}", {
            "home_account_id": home, "environment": env, "realm": realm,
            "local_account_id": f"u{account:x}", "username": f"u{account:x}@x.y", "authority_type": "MSSTS"})
        add("IdToken", f"i{account}", {
            "credential_type": "IdToken", "home_account_id": home, "environment": env, "client_id": client,
            "realm": realm, "secret": f"id.{account}"})
        add("RefreshToken", f"r{account}", {
            "credential_type": "RefreshToken", "home_account_id": home, "environment": env, "client_id": client,
            "secret": f"rt.{account}"})
        for scope in range(7):
            target = f"s{scope}"
            add("AccessToken", f"t{account}.{scope}", {
                "credential_type": "AccessToken", "home_account_id": home, "environment": env, "client_id": client,
                "realm": realm, "target": target, "secret": f"at.{account}.{scope}"})
        account += 1
    sections["AppMetadata"][f"appmetadata-{env}-{client}"] = {"client_id": client, "environment": env}
    with open(out, "w") as f:
        json.dump(sections, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
