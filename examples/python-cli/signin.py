"""A command-line app that signs in once and is silent afterwards, in this process and every other.

    python signin.py            # first run: the device-code prompt; later runs: the cached token
    python signin.py --sign-out

The tokens live in the tokencache store (TOKENCACHE_STORE, else the per-user SQLite store), so a
second process, another app of the same publisher, or `tokencache accounts` sees the sign-in.
"""

import argparse
import sys

import msal
from tokencache.msal import TokenCache

# Azure CLI's public client id and a Microsoft Graph scope: any public client app works the same.
CLIENT_ID = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
AUTHORITY = "https://login.microsoftonline.com/organizations"
SCOPES = ["User.Read"]


def make_app(http_client=None):
    """The MSAL app over the tokencache store. `http_client` replaces MSAL's HTTP session (tests
    give it an offline identity provider)."""
    options = {"http_client": http_client} if http_client is not None else {}
    return msal.PublicClientApplication(CLIENT_ID, authority=AUTHORITY, token_cache=TokenCache(), **options)


def sign_in(app):
    """A token for SCOPES: silently from the cache when an account is signed in, else by the
    device-code flow. Returns MSAL's result and the account's username."""
    for account in app.get_accounts():
        result = app.acquire_token_silent(SCOPES, account=account)
        if result and "access_token" in result:
            return result, account["username"]
    flow = app.initiate_device_flow(SCOPES)
    if "user_code" not in flow:
        raise SystemExit("signin: cannot start the device-code flow: %s" % flow.get("error_description", flow))
    print(flow["message"], file=sys.stderr, flush=True)
    result = app.acquire_token_by_device_flow(flow)
    return result, result.get("id_token_claims", {}).get("preferred_username", "?")


def main(argv=None, http_client=None):
    parser = argparse.ArgumentParser(description="Sign in once; silent afterwards.")
    parser.add_argument("--sign-out", action="store_true", help="remove every account of this app")
    arguments = parser.parse_args(argv)
    app = make_app(http_client)
    if arguments.sign_out:
        for account in app.get_accounts():
            app.remove_account(account)
            print("signed out %s" % account["username"])
        return 0
    result, username = sign_in(app)
    if "access_token" not in result:
        print("signin: %s: %s" % (result.get("error"), result.get("error_description")), file=sys.stderr)
        return 1
    # MSAL's result says where the token came from ("cache" or "identity_provider"); never print the token.
    print("signed in as %s (token from the %s)" % (username, result.get("token_source", "?").replace("_", " ")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
