"""Entries of an MSAL Python token cache, listed the same way for MSAL's own cache and the plugin."""

TYPES = ("AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata")


def _ordered(entries):
    return sorted(entries, key=lambda e: sorted(e.items()))


def entries(cache):
    """Every entry of a cache, per credential type, as MSAL's own search lists them."""
    return {t: _ordered(cache.search(t)) for t in TYPES}


def as_unified(by_type):
    """MSAL Python's entries as the unified schema keeps them, which the store follows (the
    differences are listed in docs/python.md, "Limits"):
    - an access token's `token_type` "Bearer" is the schema's default and not stored; its
      `extended_expires_on` is also given as `ext_expires_on`, and its `key_id` as `kid`,
      MSAL.NET's spellings;
    - one refresh token per (home account, environment, client, family): MSAL Python keys its
      refresh tokens by target too, and its per-target entries of one app collapse to the newest
      (which of two written in the same second is kept is not compared: `target` is left out).
    """
    result = dict(by_type)
    result["AccessToken"] = _ordered(unified_entry(entry) for entry in by_type["AccessToken"])
    result["RefreshToken"] = one_refresh_token_per_app(by_type["RefreshToken"])
    return result


def unified_entry(entry):
    """One entry as the store gives it back (an access token: see `as_unified`; a refresh token
    without `target`); the store's own entries are unchanged by it."""
    entry = dict(entry)
    if entry.get("credential_type") == "AccessToken":
        if entry.get("token_type", "").lower() == "bearer":
            del entry["token_type"]
        entry["ext_expires_on"] = entry["extended_expires_on"]
        if "key_id" in entry:
            entry["kid"] = entry["key_id"]
    elif entry.get("credential_type") == "RefreshToken":
        entry.pop("target", None)
    return entry


def one_refresh_token_per_app(tokens):
    """The newest refresh token of each (home account, environment, client, family), without `target`."""
    newest = {}
    for entry in tokens:
        identity = tuple(entry.get(k, "").lower() for k in ("home_account_id", "environment", "client_id", "family_id"))
        if identity not in newest or int(entry.get("last_modification_time", 0)) >= int(newest[identity].get("last_modification_time", 0)):
            newest[identity] = entry
    return _ordered({k: v for k, v in entry.items() if k != "target"} for entry in newest.values())
