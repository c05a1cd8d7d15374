"""Single sign-on across libraries: accounts another library wrote, imported with the CLI, are
listed by MSAL Python through the plugin and their refresh tokens redeemed (offline)."""

import os

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
