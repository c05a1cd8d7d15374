"""tokencache.Cache: the C ABI through ctypes."""

import json
import os
import subprocess
import sys

import pytest

import tokencache
from tokencache import _library

ENTRIES = {
    "Account": {"k": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com",
                      "realm": "utid", "local_account_id": "uid", "username": "ann@contoso.com",
                      "authority_type": "MSSTS"}},
    "RefreshToken": {"k": {"credential_type": "RefreshToken", "secret": "rt-secret", "home_account_id": "uid.utid",
                           "environment": "login.microsoftonline.com", "client_id": "app"}},
    "AppMetadata": {"k": {"client_id": "app", "environment": "login.microsoftonline.com"}},
}


def test_versions():
    assert tokencache.abi_version() == 1
    assert tokencache.version().count(".") == 2


def test_the_default_store_is_the_clis_and_entries_come_back_as_dicts(store, tmp_path):
    with tokencache.Cache() as cache:
        assert cache.write_entries(ENTRIES)["saved"] == 3
    assert (tmp_path / "cache.sqlite").exists(), "TOKENCACHE_STORE names the store opened by default"
    with tokencache.Cache(store=store) as cache:
        stamp = cache.change_stamp()
        assert cache.change_stamp() == stamp
        [account] = cache.msal_search("Account", query={"environment": "LOGIN.microsoftonline.com"})
        assert account["username"] == "ann@contoso.com" and isinstance(account, dict)
        assert cache.refresh_token(client_id="app", home_account_id="uid.utid")["secret"] == "rt-secret"
        assert cache.refresh_token(client_id="other", home_account_id="uid.utid") is None
        assert [a["home_account_id"] for a in cache.accounts()] == ["uid.utid"]
        assert cache.find_account(username="nobody@contoso.com") == []
        assert cache.remove_entries({"RefreshToken": ENTRIES["RefreshToken"]})["removed"] == 1
        assert cache.change_stamp() != stamp
        assert cache.msal_search("RefreshToken") == []
        document = json.loads(cache.export_msal_json())
        assert len(document["Account"]) == 1 and document["RefreshToken"] == {}


def test_failures_raise_the_exception_of_their_category(store):
    with pytest.raises(tokencache.BadInputError):
        tokencache.Cache(store="nonsense:store")
    with pytest.raises(tokencache.BadInputError):
        tokencache.Cache(store="memory", options={"no_such_option": True})
    with tokencache.Cache(store="memory") as cache:
        with pytest.raises(tokencache.BadInputError) as raised:
            cache.msal_search("NoSuchType")
        assert raised.value.category == 2
        with pytest.raises(tokencache.BadInputError) as raised:
            cache.write_entries({"AccessToken": {"k": {"credential_type": "AccessToken", "secret": "s3cr3t-value",
                                                       "expires_on": {"not": "a time"}}}})
        assert "s3cr3t-value" not in str(raised.value)
    with pytest.raises(ValueError, match="closed"):
        cache.msal_search("Account")


def test_the_library_is_found_through_tokencache_library_else_reported_clearly(tmp_path):
    env = dict(os.environ, TOKENCACHE_LIBRARY=str(tmp_path / "missing.so"))
    code = "import tokencache; tokencache.Cache(store='memory')"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode != 0
    assert "LibraryNotFoundError: cannot load libtokencache from TOKENCACHE_LIBRARY" in result.stderr
    with pytest.raises(tokencache.LibraryNotFoundError, match="given path"):
        _library.open_library(str(tmp_path / "missing.so"))


def test_a_path_is_a_sqlite_store_and_a_bad_specification_is_typed(store, tmp_path):
    path = tmp_path / "by-path.sqlite"
    with tokencache.Cache(path) as cache:
        assert cache.write_entries(ENTRIES)["saved"] == 3
    assert path.exists()
    with tokencache.Cache("sqlite:" + str(path)) as cache:
        assert [a["username"] for a in cache.accounts()] == ["ann@contoso.com"]
    with pytest.raises(TypeError, match="store specification"):
        tokencache.Cache(42)
    with pytest.raises(TypeError, match="sequence of str"):
        tokencache.Cache(store, access_groups="com.microsoft.adalcache")
    with pytest.raises(tokencache.BadInputError):
        tokencache.Cache("postgres://nope")
