"""A token cache for MSAL Python kept in tokencache: per item, shared live, answered by the index.

    import msal
    from tokencache.msal import TokenCache

    app = msal.PublicClientApplication(CLIENT_ID, authority=..., token_cache=TokenCache())

MSAL Python still forms every entry itself (its `TokenCache.add` and `modify`); this class only
changes where the entries go and where searches are answered:

- `add` (one token response) collects the entries MSAL writes through `modify` and commits them to
  the store as one atomic batch; `modify` outside `add` (a refresh token updated, a token or an
  account removed) commits at once;
- `search` is answered by the engine's search through the C ABI (exactly MSAL Python's matching
  rules), from its in-memory index, which follows every other process's commits on the next call;
- nothing is held in memory between calls but answers remembered for an unchanged store (keyed by
  the store's change stamp), so a token another process saved is seen by the very next call.

`PersistedTokenCache` has the constructor of msal-extensions' class of that name, for a two-line
migration (see docs/python.md).
"""

import os
import threading
import time

import msal as _msal

from .cache import Cache

#: The MSAL Python versions this plugin is tested against. It overrides `add`, `modify`, `search`
#: and the private `_get_access_token` / `_get_app_metadata` of `msal.TokenCache`, whose behaviour
#: is only known for these versions.
SUPPORTED_MSAL_VERSIONS = ("1.39.0",)


class UnsupportedMSALVersionError(RuntimeError):
    """The installed MSAL Python is not one this plugin was tested with."""


def _check_msal_version(version=None):
    version = version or getattr(_msal, "__version__", "unknown")
    if version not in SUPPORTED_MSAL_VERSIONS:
        raise UnsupportedMSALVersionError(
            "tokencache.msal supports MSAL Python %s; this is %s. Install a supported version "
            "(pip install 'msal==%s') or a tokencache release that supports it."
            % (", ".join(SUPPORTED_MSAL_VERSIONS), version, SUPPORTED_MSAL_VERSIONS[-1]))


class TokenCache(_msal.SerializableTokenCache):
    """An `msal.SerializableTokenCache` whose entries live in a tokencache store.

    :param store: a store specification as the CLI takes it (``"sqlite:PATH"``, ``"memory"``,
        ``"secret-service"``...); default: the CLI's store (``TOKENCACHE_STORE``, else the default path).
    :param access_groups: the access groups to open (the first receives writes); default: the CLI's.
    :param cache: an open :class:`tokencache.Cache` to use instead of opening one (not closed by us).
    """

    def __init__(self, store=None, *, access_groups=None, cache=None):
        _check_msal_version()
        super().__init__()
        self._owns_store = cache is None
        self._store = cache if cache is not None else Cache(store=store, access_groups=access_groups)
        self._pending = None  # the batch of the token response being added, when inside add()
        self._memo = {}  # (type, query, target) -> entries, valid while the change stamp is unchanged
        self._memo_stamp = None
        self._memo_lock = threading.Lock()

    # MARK: - Life cycle

    @property
    def cache(self):
        """The underlying :class:`tokencache.Cache`."""
        return self._store

    def close(self):
        """Closes the store when this object opened it."""
        if self._owns_store:
            self._store.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # MARK: - Writes: MSAL forms the entries, the store keeps them

    def add(self, event, **kwargs):
        """MSAL Python's `add`: its entries for one token response, committed as one batch."""
        with self._lock:
            self._pending = []
            try:
                super().add(event, **kwargs)
                batch = self._pending
            finally:
                self._pending = None
            if batch:
                self._write(batch)
            self.has_state_changed = False

    def modify(self, credential_type, old_entry, new_key_value_pairs=None):
        """MSAL Python's `modify`, with the entry it forms sent to the store.

        MSAL's own `modify` runs on an empty scratch dictionary, so the entry stored is exactly the
        one MSAL would have kept in memory (its key maker and merge rule included).
        """
        with self._lock:
            self._cache = {}
            try:
                _msal.TokenCache.modify(self, credential_type, old_entry, new_key_value_pairs)
                formed = list(self._cache.get(credential_type, {}).values())
            finally:
                self._cache = {}
            if new_key_value_pairs:
                operation = {"op": "save", "type": credential_type, "entry": formed[0]}
            else:
                operation = {"op": "remove", "type": credential_type, "entry": dict(old_entry)}
            if self._pending is not None:
                self._pending.append(operation)
            else:
                self._write([operation])
            self.has_state_changed = False

    def _write(self, operations):
        """Commits entries MSAL formed as one atomic batch: the saves of one token response (or of
        one `modify`), or one removal. Items are keyed by the entries' members, as MSAL keys them,
        so an entry replaces the item MSAL would have replaced; every other item is left alone."""
        removals = [op for op in operations if op["op"] == "remove"]
        document = {}
        for operation in operations:
            section = document.setdefault(operation["type"], {})
            section[str(len(section))] = operation["entry"]
        if removals and len(removals) != len(operations):
            raise ValueError("tokencache.msal: a batch either saves or removes entries")
        if removals:
            return self._store.remove_entries(document)
        return self._store.write_entries(document)

    # MARK: - Reads: the engine's search

    def search(self, credential_type, target=None, query=None, *, now=None):
        """MSAL Python's `search`, answered by the engine's index.

        As MSAL's: an iterator; an access token whose key matches the query and target exactly is
        yielded first; access tokens expired at `now` are not yielded (MSAL also deletes them as it
        meets them; here they stay until a new token for the same scopes replaces them, which MSAL
        notes is enough, or until `remove_account`).
        """
        target = sorted(target or [])
        if now is None:
            entries = self._search(credential_type, query, target)
        else:  # a caller's own clock: asked as such, not remembered
            entries = self._store.msal_search(credential_type, query=query, target=target, now=now)
        if credential_type == self.CredentialType.ACCESS_TOKEN and entries:
            now = int(time.time() if now is None else now)
            entries = [e for e in entries if int(e["expires_on"]) >= now]
            if (len(entries) > 1 and isinstance(query, dict) and target and all(
                    k in query for k in ("home_account_id", "environment", "client_id", "realm"))):
                wanted = " ".join(target).lower()
                entries = sorted(entries, key=lambda e: e.get("target", "").lower() != wanted)
        return iter(entries)

    def _search(self, credential_type, query, target):
        key = (credential_type, _freeze(query), tuple(target))
        stamp = self._store.change_stamp()
        with self._memo_lock:
            if stamp != self._memo_stamp:
                self._memo.clear()
                self._memo_stamp = stamp
            else:
                found = self._memo.get(key)
                if found is not None:
                    return found
        found = self._store.msal_search(credential_type, query=query, target=target)
        with self._memo_lock:
            if stamp == self._memo_stamp:
                if len(self._memo) > 4096:
                    self._memo.clear()
                self._memo[key] = found
        return found

    def _get_access_token(self, home_account_id, environment, client_id, realm, target,
                          ext_cache_key=None, default=None):
        query = {"home_account_id": home_account_id, "environment": environment,
                 "client_id": client_id, "realm": realm}
        if ext_cache_key:
            query["ext_cache_key"] = ext_cache_key
        wanted = " ".join(target).lower()
        for entry in self._search(self.CredentialType.ACCESS_TOKEN, query, sorted(target)):
            if entry.get("target", "").lower() == wanted:
                return entry
        return default

    def _get_app_metadata(self, environment, client_id, default=None):
        found = self._search(self.CredentialType.APP_METADATA,
                             {"environment": environment, "client_id": client_id}, [])
        return found[0] if found else default

    def _get(self, credential_type, key, default=None):
        raise NotImplementedError(
            "tokencache.msal.TokenCache answers lookups by content; MSAL Python %s called _get "
            "with a key, which this plugin does not support" % _msal.__version__)

    # MARK: - Serialization: the store's content as MSAL JSON

    def serialize(self):
        """The store's entries as MSAL JSON (every partition), as `SerializableTokenCache` gives them."""
        self.has_state_changed = False
        return self._store.export_msal_json().decode("utf-8")

    def deserialize(self, state):
        """Merges MSAL JSON into the store, item by item (nothing is removed)."""
        if state:
            self._store.import_msal_json(state.encode("utf-8") if isinstance(state, str) else state)
        self.has_state_changed = False


class PersistedTokenCache(TokenCache):
    """A drop-in for `msal_extensions.PersistedTokenCache(persistence, lock_location=None)`.

    The persistence and the lock file are not used: tokens live in the tokencache store (``store``,
    default the CLI's), per item, with no lock held between a read and a write. Bring the tokens the
    persistence holds over once with ``tokencache import FILE`` (or ``import --from auto``).
    """

    def __init__(self, persistence=None, lock_location=None, *, store=None, access_groups=None, cache=None):
        super().__init__(store=store, access_groups=access_groups, cache=cache)
        self.persistence = persistence
        # As msal-extensions reports it: SQLite stores seal every payload (AES-GCM) and the Secret
        # Service keeps items in the keyring; a memory store persists nothing.
        spec = store if store is not None else os.environ.get("TOKENCACHE_STORE", "")
        self.is_encrypted = cache is None and not spec.startswith("memory")


def _freeze(query):
    if not query:
        return ()
    return tuple(sorted((k, v if isinstance(v, (str, int, float, type(None))) else repr(v)) for k, v in query.items()))
