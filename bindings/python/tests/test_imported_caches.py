"""Single sign-on across libraries: accounts another library wrote, imported with the CLI, are
listed by MSAL Python through the plugin and their refresh tokens redeemed (offline)."""

import json
import logging
import os
import subprocess
import sys

import msal

import fake_sts
from conftest import FIXTURES, cli
from tokencache import Cache
from tokencache.msal import TokenCache

# msal-dotnet/MultiCloudTokenCache.json, written by MSAL.NET: its public-cloud user.
NET_CLIENT = "0615b6ca-88d4-4884-8729-b178178f7c27"
NET_USER = fake_sts.User("ae821e4d-f408-451a-af82-882691148603", "49f548d0-12b7-4169-a390-bb5304d24462",
                         "user@cloud.onmicrosoft.com")
NET_AUTHORITY = "https://login.windows.net/49f548d0-12b7-4169-a390-bb5304d24462"


def test_an_msal_net_cache_imported_with_the_cli_is_listed_and_refreshes_through_the_plugin(store):
    cli("import", "--store", store, os.path.join(FIXTURES, "msal-dotnet", "MultiCloudTokenCache.json"))
    sts = fake_sts.FakeSTS(tag="net")
    sts.accept_refresh_token("secret", NET_USER)  # the fixture's refresh token
    app = msal.PublicClientApplication(NET_CLIENT, authority=NET_AUTHORITY, token_cache=TokenCache(),
                                       http_client=sts, instance_discovery=False)
    accounts = app.get_accounts()
    assert [(a["home_account_id"], a["username"]) for a in accounts] == [(NET_USER.home_account_id, NET_USER.username)]

    # The fixture's access tokens expired in 2019: MSAL redeems MSAL.NET's refresh token.
    result = app.acquire_token_silent(["User.Read"], account=accounts[0])
    assert result and result.get("token_source") == "identity_provider", result
    assert sts.posts == 1

    # The new tokens are in the store: another app instance, with no HTTP, finds them.
    again = fake_sts.FakeSTS(tag="again")
    other = msal.PublicClientApplication(NET_CLIENT, authority=NET_AUTHORITY, token_cache=TokenCache(),
                                         http_client=again, instance_discovery=False)
    hit = other.acquire_token_silent(["User.Read"], account=other.get_accounts()[0])
    assert hit["access_token"] == result["access_token"] and hit["token_source"] == "cache"
    assert again.posts == 0
    # and the other clouds' accounts MSAL.NET wrote are still there, untouched
    with Cache() as cache:
        environments = sorted({a["environment"] for a in cache.msal_search("Account")})
    assert environments == ["login.microsoftonline.de", "login.partner.microsoftonline.cn", "login.windows.net"]


# adal-objc/adal1x-token-cache-store-item.bplist, written by ADAL for iOS 1.x: one keychain item's
# archive, a multi-resource refresh token (no resource) for the user of its ID token. ADAL 1.x
# stored no client info: the account's home id is the ID token's oid.tid.
ADAL_FIXTURE = os.path.join(FIXTURES, "adal-objc", "adal1x-token-cache-store-item.bplist")
ADAL_CLIENT = "27AD83C9-FC05-4A6C-AF01-36EDA42ED18F"  # as ADAL archived it; MSAL compares client ids exactly
ADAL_USER = fake_sts.User("53c6acf2-2742-4538-918d-e78257ec8516", "6fd1f5cd-a94c-4335-889b-6c598e6d8048",
                          "myfakeuser@contoso.com")
ADAL_AUTHORITY = "https://login.microsoftonline.com/common"
ADAL_SECRETS = ("<refresh token>", "<access token>")


def _adal_app(sts):
    return msal.PublicClientApplication(ADAL_CLIENT, authority=ADAL_AUTHORITY, token_cache=TokenCache(),
                                        http_client=sts, instance_discovery=False)


def _import_adal_fixture(store):
    output = subprocess.run([os.environ.get("TOKENCACHE_CLI", "tokencache"), "import", "--store", store, ADAL_FIXTURE],
                            capture_output=True, text=True)
    assert output.returncode == 0, output.stderr
    assert not any(s in output.stdout + output.stderr for s in ADAL_SECRETS)


def test_an_adal_objc_keychain_item_imported_with_the_cli_is_listed_and_refreshes_through_the_plugin(
        store, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    _import_adal_fixture(store)
    sts = fake_sts.FakeSTS(tag="adal")
    sts.accept_refresh_token("<refresh token>", ADAL_USER)  # the only refresh token it redeems
    app = _adal_app(sts)
    accounts = app.get_accounts()
    assert [(a["home_account_id"], a["username"], a["environment"]) for a in accounts] == [
        (ADAL_USER.home_account_id, ADAL_USER.username, "login.microsoftonline.com")]

    # No access token for these scopes: MSAL redeems ADAL's refresh token, with no interaction.
    result = app.acquire_token_silent(["User.Read"], account=accounts[0])
    assert result and result.get("token_source") == "identity_provider", result
    assert sts.posts == 1

    # A second process finds what MSAL saved, and the account, with no HTTP at all.
    script = tmp_path / "second.py"
    script.write_text(SECOND_PROCESS)
    second = subprocess.run([sys.executable, str(script), ADAL_CLIENT, ADAL_AUTHORITY],
                            capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(__file__))))
    assert second.returncode == 0, second.stderr
    answer = json.loads(second.stdout)
    assert answer == {"accounts": [ADAL_USER.home_account_id], "access_token": result["access_token"],
                      "token_source": "cache", "posts": 0}
    assert not any(s in caplog.text + second.stderr for s in ADAL_SECRETS)

    # remove_account removes what MSAL removes: this app's tokens, the account, and with it the
    # ADAL entries it was made of; nothing of the user is left for any MSAL app to list.
    app.remove_account(app.get_accounts()[0])
    assert app.get_accounts() == []
    with Cache() as cache:
        for kind in ("AccessToken", "RefreshToken", "IdToken", "Account"):
            assert cache.msal_search(kind, query={"home_account_id": ADAL_USER.home_account_id}) == [], kind
        assert cache.accounts() == []
        assert [a["client_id"] for a in cache.msal_search("AppMetadata")] == [ADAL_CLIENT], "MSAL keeps app metadata"


def test_removing_an_adal_account_before_any_refresh_removes_its_adal_entries(store):
    _import_adal_fixture(store)
    sts = fake_sts.FakeSTS(tag="gone")
    app = _adal_app(sts)
    [account] = app.get_accounts()
    app.remove_account(account)
    assert app.get_accounts() == [] and sts.posts == 0
    with Cache() as cache:
        assert cache.msal_search("RefreshToken") == [] and cache.accounts() == []
    assert app.acquire_token_silent(["User.Read"], account=account) is None and sts.posts == 0


SECOND_PROCESS = r'''
import json, sys
import msal
import fake_sts
from tokencache.msal import TokenCache
client, authority = sys.argv[1], sys.argv[2]
sts = fake_sts.FakeSTS(tag="second")
app = msal.PublicClientApplication(client, authority=authority, token_cache=TokenCache(),
                                   http_client=sts, instance_discovery=False)
accounts = app.get_accounts()
hit = app.acquire_token_silent(["User.Read"], account=accounts[0])
print(json.dumps({"accounts": [a["home_account_id"] for a in accounts], "access_token": hit["access_token"],
                  "token_source": hit["token_source"], "posts": sts.posts}))
'''
