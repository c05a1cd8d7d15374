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

The one deliberate difference from `msal.SerializableTokenCache`: `has_state_changed` stays false
after `add()` and `modify()`, since every change is in the store already (an app that persists on a
change would otherwise write the whole store out after every token).
"""

from __future__ import annotations

import inspect
import os
import threading
import time
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import msal as _msal

from .cache import Cache, Entry
from .msal_versions import check_msal_version as _check_msal_version
from .msal_versions import (  # noqa: F401 (re-exported)
    SUPPORTED_MSAL_VERSIONS, UnsupportedMSALVersionError, UntestedMSALVersionWarning)
from .options import Loading, OpenOptions, StoreSpecification

# MSAL's own class, as imported (the base class below is too): a program (or a test) may replace `msal.TokenCache` with this
# class, and a call through the module would then reach this class again, endlessly.
_MSALTokenCache = _msal.TokenCache
_MSAL_VERSION = getattr(_msal, "__version__", "unknown")


def _minor_version(version: str) -> Tuple[int, int]:
    parts = (version.split(".") + ["0"])[:2]
    return (int(parts[0]), int(parts[1])) if all(p.isdigit() for p in parts) else (0, 0)


# Whether the installed MSAL's `search` leaves out expired access tokens (1.32 on; it also takes
# `now` from then on).
_SEARCH_SKIPS_EXPIRED = "now" in inspect.signature(_MSALTokenCache.search).parameters
# Whether the installed MSAL matches a query's `environment` case-insensitively (1.34 on), as the
# engine does; before, only the exact text matched.
_QUERY_ENVIRONMENT_IGNORES_CASE = _minor_version(_MSAL_VERSION) >= (1, 34)
# A time before every token's expiry: the engine is asked for expired tokens too, and this class
# leaves out what the installed MSAL leaves out.
_NO_EXPIRY_FILTER = 1


class TokenCache(_msal.SerializableTokenCache):
    """An `msal.SerializableTokenCache` whose entries live in a tokencache store.

    :param store: a store specification as the CLI takes it (``"sqlite:PATH"``, ``"memory"``,
        ``"secret-service"``, ``"redis://..."``), or a path of a SQLite store; default: the CLI's
        store (``TOKENCACHE_STORE``, else the default path).
    :param access_groups: the access groups to open (the first receives writes); default: the CLI's.
    :param cache: an open :class:`tokencache.Cache` to use instead of opening one (not closed by us).
    :param options: the store's open options (:class:`tokencache.options.OpenOptions`).
    :param loading: ``"partitions"`` for a server's store of many users: only the accounts MSAL
        asks about are read, each on its first lookup; ``"whole_store"`` (the default) indexes all.
    :param partition_limit: with ``loading="partitions"``, about how many items to keep in memory.
    :raises UnsupportedMSALVersionError: the installed MSAL Python is older than 1.31 or not 1.x.
    """

    def __init__(
        self,
        store: Union[StoreSpecification, "os.PathLike[str]"] = None,
        *,
        access_groups: Optional[Sequence[str]] = None,
        cache: Optional[Cache] = None,
        options: Optional[OpenOptions] = None,
        loading: Optional[Loading] = None,
        partition_limit: Optional[int] = None,
    ) -> None:
        _check_msal_version()
        super().__init__()
        if cache is not None and (store is not None or access_groups or options or loading or partition_limit):
            raise ValueError("tokencache.msal.TokenCache: give an open `cache` or what to open, not both")
        self._owns_store = cache is None
        self._store: Cache = cache if cache is not None else Cache(
            store=store, access_groups=access_groups, options=options, loading=loading, partition_limit=partition_limit)
        self._pending: Optional[List[Dict[str, Any]]] = None  # the batch of the token response being added
        # (type, query, target) -> entries, valid while the change stamp is unchanged
        self._memo: Dict[Tuple[Any, ...], List[Entry]] = {}
        self._memo_stamp: Optional[Tuple[int, int]] = None
        self._memo_lock = threading.Lock()

    # MARK: - Life cycle

    @property
    def cache(self) -> Cache:
        """The underlying :class:`tokencache.Cache`."""
        return self._store

    def close(self) -> None:
        """Closes the store when this object opened it."""
        if self._owns_store:
            self._store.close()

    def __enter__(self) -> "TokenCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # MARK: - Writes: MSAL forms the entries, the store keeps them

    def add(self, event: Dict[str, Any], **kwargs: Any) -> None:
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

    def modify(self, credential_type: str, old_entry: Dict[str, Any],
               new_key_value_pairs: Optional[Dict[str, Any]] = None) -> None:
        """MSAL Python's `modify`, with the entry it forms sent to the store.

        MSAL's own `modify` runs on an empty scratch dictionary, so the entry stored is exactly the
        one MSAL would have kept in memory (its key maker and merge rule included).
        """
        with self._lock:
            self._cache: Dict[str, Dict[str, Entry]] = {}
            try:
                _MSALTokenCache.modify(self, credential_type, old_entry, new_key_value_pairs)
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

    def _write(self, operations: List[Dict[str, Any]]) -> Dict[str, Any]:
        """Commits entries MSAL formed as one atomic batch: the saves of one token response (or of
        one `modify`), or one removal. Items are keyed by the entries' members, as MSAL keys them,
        so an entry replaces the item MSAL would have replaced; every other item is left alone."""
        removals = [op for op in operations if op["op"] == "remove"]
        document: Dict[str, Dict[str, Entry]] = {}
        for operation in operations:
            section = document.setdefault(operation["type"], {})
            section[str(len(section))] = operation["entry"]
        if removals and len(removals) != len(operations):
            raise ValueError("tokencache.msal: a batch either saves or removes entries")
        if removals:
            return self._store.remove_entries(document)
        return self._store.write_entries(document)

    # MARK: - Reads: the engine's search

    def search(self, credential_type: str, target: Optional[Iterable[str]] = None,
               query: Optional[Dict[str, Any]] = None, *, now: Optional[float] = None) -> Iterator[Entry]:
        """MSAL Python's `search`, answered by the engine's index.

        As MSAL's: an iterator; an access token whose key matches the query and target exactly is
        yielded first; from MSAL 1.32 on, access tokens expired at `now` are not yielded (MSAL also
        deletes them as it meets them; here they stay until a new token for the same scopes
        replaces them, which MSAL notes is enough, or until `remove_account`: a delete here could
        remove the fresh token another process just saved under the same key).
        """
        target = sorted(target or [])
        entries = self._search(credential_type, query, target)
        if not _QUERY_ENVIRONMENT_IGNORES_CASE and query and isinstance(query.get("environment"), str):
            entries = [e for e in entries if e.get("environment") == query["environment"]]
        if credential_type == self.CredentialType.ACCESS_TOKEN and entries and _SEARCH_SKIPS_EXPIRED:
            now = int(time.time() if now is None else now)
            entries = [e for e in entries if int(e["expires_on"]) >= now]
            if (len(entries) > 1 and isinstance(query, dict) and target and all(
                    k in query for k in ("home_account_id", "environment", "client_id", "realm"))):
                wanted = " ".join(target).lower()
                entries = sorted(entries, key=lambda e: e.get("target", "").lower() != wanted)
        return iter(entries)

    def _search(self, credential_type: str, query: Optional[Dict[str, Any]], target: List[str]) -> List[Entry]:
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
        found = self._store.msal_search(credential_type, query=query, target=target, now=_NO_EXPIRY_FILTER)
        if credential_type == self.CredentialType.ACCESS_TOKEN:
            # MSAL writes app tokens with `"home_account_id": null`; the unified schema leaves a
            # missing member out, and MSAL's readers index the member.
            for entry in found:
                entry.setdefault("home_account_id", None)
        with self._memo_lock:
            if stamp == self._memo_stamp:
                if len(self._memo) > 4096:
                    self._memo.clear()
                self._memo[key] = found
        return found

    def _get_access_token(self, home_account_id: Optional[str], environment: str, client_id: str,
                          realm: Optional[str], target: Sequence[str], ext_cache_key: Optional[str] = None,
                          default: Any = None) -> Any:
        # MSAL's key: these members and the target, lower-cased, and the extended key when given.
        query = {"home_account_id": home_account_id, "environment": environment,
                 "client_id": client_id, "realm": realm}
        if ext_cache_key:
            query["ext_cache_key"] = ext_cache_key
        wanted = " ".join(target).lower()
        for entry in self._search(self.CredentialType.ACCESS_TOKEN, query, sorted(target)):
            if entry.get("target", "").lower() == wanted:
                return entry
        return default

    def _get_app_metadata(self, environment: str, client_id: str, default: Any = None) -> Any:
        found = self._search(self.CredentialType.APP_METADATA,
                             {"environment": environment, "client_id": client_id}, [])
        return found[0] if found else default

    def _get(self, credential_type: str, key: str, default: Any = None) -> Any:
        raise NotImplementedError(
            "tokencache.msal.TokenCache answers lookups by content; MSAL Python %s called _get "
            "with a key, which this plugin does not support" % _MSAL_VERSION)

    # MARK: - Serialization: the store's content as MSAL JSON

    def serialize(self) -> str:
        """The store's entries as MSAL JSON (every partition), as `SerializableTokenCache` gives them."""
        self.has_state_changed = False
        return self._store.export_msal_json().decode("utf-8")

    def deserialize(self, state: Optional[Union[str, bytes]]) -> None:
        """Merges MSAL JSON into the store, item by item (nothing is removed: the store is shared,
        and MSAL's replacing of its whole in-memory state would remove other apps' tokens)."""
        if state:
            self._store.import_msal_json(state.encode("utf-8") if isinstance(state, str) else state)
        self.has_state_changed = False


class PersistedTokenCache(TokenCache):
    """A drop-in for `msal_extensions.PersistedTokenCache(persistence, lock_location=None)`.

    The persistence and the lock file are not used: tokens live in the tokencache store (``store``,
    default the CLI's), per item, with no lock held between a read and a write. Bring the tokens the
    persistence holds over once with ``tokencache import FILE`` (or ``import --from auto``).
    """

    def __init__(self, persistence: Any = None, lock_location: Optional[str] = None, *,
                 store: Union[StoreSpecification, "os.PathLike[str]"] = None,
                 access_groups: Optional[Sequence[str]] = None, cache: Optional[Cache] = None,
                 options: Optional[OpenOptions] = None, loading: Optional[Loading] = None,
                 partition_limit: Optional[int] = None) -> None:
        super().__init__(store=store, access_groups=access_groups, cache=cache, options=options,
                         loading=loading, partition_limit=partition_limit)
        self.persistence = persistence
        # As msal-extensions reports it: SQLite stores seal every payload (AES-GCM) and the Secret
        # Service keeps items in the keyring; a memory store persists nothing.
        spec = os.fspath(store) if store is not None else os.environ.get("TOKENCACHE_STORE", "")
        self.is_encrypted = cache is None and not spec.startswith("memory")


def _freeze(query: Optional[Dict[str, Any]]) -> Tuple[Any, ...]:
    if not query:
        return ()
    return tuple(sorted((k, v if isinstance(v, (str, int, float, type(None))) else repr(v)) for k, v in query.items()))
