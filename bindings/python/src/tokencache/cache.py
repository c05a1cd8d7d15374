"""`Cache`: one open tokencache store and its engine, through the C ABI (tokencache.h)."""

from __future__ import annotations

import ctypes
import json
import os
import threading
from typing import Any, Dict, Iterable, List, Literal, Optional, Sequence, Tuple, Union

from . import _abi, _library
from .errors import InternalError, NotFoundError, from_category
from .options import Loading, OpenOptions, StoreSpecification, open_options, store_text

#: An MSAL JSON entry (an AccessToken, RefreshToken, IdToken, Account or AppMetadata object).
Entry = Dict[str, Any]
#: The partitions of the blob API.
Partition = Literal["all", "account", "client"]

_RAISE = object()  # a lookup's NotFoundError is raised rather than turned into a value
_SECTIONS = ("AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata")
_PARTITIONS = {"all": _abi.PARTITION_ALL, "account": _abi.PARTITION_ACCOUNT, "client": _abi.PARTITION_CLIENT}


def _text(value: Optional[str]) -> Optional[bytes]:
    return None if value is None else value.encode("utf-8")


def _json(value: Any) -> Optional[bytes]:
    return None if value is None else json.dumps(value).encode("utf-8")


def version() -> str:
    """libtokencache's version, e.g. "0.11.0"."""
    return _library.library().tokencache_version().decode("utf-8")


def abi_version() -> int:
    """The ABI version libtokencache implements (this binding is written for 1)."""
    return _library.library().tokencache_abi_version()


class Cache:
    """An open tokencache store with its engine: lookups, accounts, MSAL's search, blobs.

    :param store: a store specification as the CLI's ``--store`` takes it (``"sqlite:PATH"``,
        ``"memory"``, ``"secret-service"``, ``"secret-service:COLLECTION"``, ``"redis://..."``), or
        a path (``os.PathLike``) of a SQLite store; ``None`` opens what the CLI opens
        (``TOKENCACHE_STORE``, else ``$XDG_DATA_HOME/tokencache/cache.sqlite``).
    :param access_groups: the access groups to open, the first receiving writes; default: the CLI's
        (``TOKENCACHE_ACCESS_GROUPS``, else ``com.microsoft.adalcache``).
    :param options: the ABI's open options (:class:`~tokencache.options.OpenOptions`).
    :param loading: ``"partitions"`` keeps only the accounts lookups touched (a server's store of
        many users: the first lookup of an account reads only its items); ``"whole_store"`` (the
        default) indexes every item.
    :param partition_limit: with ``loading="partitions"``, about how many items to keep in memory,
        least recently used out (default 100,000).
    :raises ValueError: for a bad ``loading`` or ``partition_limit`` (before anything is opened).
    :raises TokenCacheError: the subclass of the failure's category (a bad specification is a
        :class:`~tokencache.errors.BadInputError`, an unreachable store an
        :class:`~tokencache.errors.UnavailableError`).

    Entries come back as dicts in MSAL's JSON entry form; failures raise the
    :class:`~tokencache.errors.TokenCacheError` subclass of their category. Safe to use from
    several threads, `close()` included: calls already inside the library finish before the store
    is freed, and calls made after `close()` raise ``ValueError``.
    """

    def __init__(
        self,
        store: Union[StoreSpecification, "os.PathLike[str]"] = None,
        access_groups: Optional[Sequence[str]] = None,
        *,
        options: Optional[OpenOptions] = None,
        loading: Optional[Loading] = None,
        partition_limit: Optional[int] = None,
    ) -> None:
        self._handle: Optional[ctypes.c_void_p] = None
        if isinstance(access_groups, str):
            raise TypeError("tokencache: access_groups is a sequence of str, not one str")
        merged = open_options(options, loading, partition_limit)
        self._lib = _library.library()
        if self._lib.tokencache_abi_version() != _abi.ABI_VERSION:
            raise InternalError("libtokencache implements ABI %d; this binding needs ABI %d" % (
                self._lib.tokencache_abi_version(), _abi.ABI_VERSION))
        groups = [_text(g) for g in (access_groups or [])]
        array = (ctypes.c_char_p * len(groups))(*groups) if groups else None
        handle = ctypes.c_void_p()
        self._handle = None
        self._closed = False
        self._call(self._lib.tokencache_open, _text(store_text(store)), array, len(groups), _json(merged), ctypes.byref(handle))
        self.loading: Loading = (merged or {}).get("loading", "whole_store")
        self._handle = handle
        self._stamp = _abi.Stamp()
        self._close_lock = threading.Lock()

    # MARK: - Life cycle

    def close(self):
        """Closes the store. Further calls raise ``ValueError``."""
        with self._close_lock:
            if self._handle is not None:
                handle, self._handle = self._handle, None
                self._closed = True
                # The library keeps the store alive for calls other threads are making with it.
                self._lib.tokencache_close(handle)

    @property
    def closed(self):
        return self._handle is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # MARK: - Calls

    def _open_handle(self):
        handle = self._handle
        if handle is None:
            raise ValueError("the tokencache store is closed")
        return handle

    def _call(self, function, *arguments):
        error = ctypes.c_void_p()
        status = function(*arguments, ctypes.byref(error))
        if status != 0:
            failure = self._error(status, error)
            if self._closed:
                # The handle was closed by another thread after this call read it.
                raise ValueError("the tokencache store is closed")
            raise failure

    def _error(self, status: int, error: ctypes.c_void_p) -> Exception:
        if not error.value:
            return from_category(status, "libtokencache failed (category %d)" % status)
        try:
            category = self._lib.tokencache_error_category_of(error)
            message = (self._lib.tokencache_error_message(error) or b"").decode("utf-8", "replace")
            remedy = self._lib.tokencache_error_remedy(error)
            if remedy:
                message += " (" + remedy.decode("utf-8", "replace") + ")"
        finally:
            self._lib.tokencache_error_free(error)
        return from_category(category, message)

    def _take(self, pointer: ctypes.c_void_p) -> Optional[bytes]:
        """The JSON text of a result string, which is freed."""
        if not pointer.value:
            return None
        try:
            return ctypes.string_at(pointer.value)
        finally:
            self._lib.tokencache_free(pointer)

    def _take_present(self, pointer: ctypes.c_void_p, what: str) -> bytes:
        """The JSON text of a result string the call succeeded with, which must be there."""
        text = self._take(pointer)
        if text is None:
            raise InternalError("libtokencache reported success without a %s" % what)
        return text

    def _result(self, function: Any, *arguments: Any, missing: Any = _RAISE) -> Any:
        out = ctypes.c_void_p()
        try:
            self._call(function, self._open_handle(), *arguments, ctypes.byref(out))
        except NotFoundError:
            if missing is _RAISE:
                raise
            return missing
        text = self._take(out)
        return None if text is None else json.loads(text)

    # MARK: - Saving and lookups

    def save(self, request: Dict[str, Any], response: Dict[str, Any]) -> Dict[str, Any]:
        """The engine's save of a token response (`request`: authority, client_id, scopes...;
        `response`: the token endpoint's JSON, as a dict). Returns what was saved."""
        return self._result(self._lib.tokencache_save, _json(request), _json(response))

    def access_token(self, **query: Any) -> Optional[Entry]:
        """The AccessToken entry for `query` (home_account_id, environment, client_id, scopes...), or None."""
        return self._result(self._lib.tokencache_lookup_access_token, _json(query), missing=None)

    def refresh_token(self, **query: Any) -> Optional[Entry]:
        """The RefreshToken entry for `query` (client_id, home_account_id or username...), or None."""
        return self._result(self._lib.tokencache_lookup_refresh_token, _json(query), missing=None)

    def id_token(self, **query: Any) -> Optional[Entry]:
        """The IdToken entry for `query` (home_account_id, client_id, environment...), or None."""
        return self._result(self._lib.tokencache_lookup_id_token, _json(query), missing=None)

    def app_metadata(self, **query: Any) -> Optional[Entry]:
        """The AppMetadata entry for `query` (client_id, environment), or None."""
        return self._result(self._lib.tokencache_lookup_app_metadata, _json(query), missing=None)

    # MARK: - Accounts

    def accounts(self, client_id: Optional[str] = None, environment: Optional[str] = None) -> List[Entry]:
        """Account entries (one per tenant record), optionally those signed in to `client_id`."""
        filter_ = {k: v for k, v in (("client_id", client_id), ("environment", environment)) if v}
        return self._result(self._lib.tokencache_accounts, _json(filter_ or None))

    def find_account(self, **query: Any) -> List[Entry]:
        """One account's Account entries (by home_account_id or username), or []."""
        return self._result(self._lib.tokencache_find_account, _json(query), missing=[])

    def remove_account(self, home_account_id: str, client_id: Optional[str] = None) -> Dict[str, Any]:
        """Signs the account out of `client_id` (every app when None). Returns what was removed."""
        out = ctypes.c_void_p()
        self._call(self._lib.tokencache_remove_account, self._open_handle(), _text(home_account_id),
                   _text(client_id), ctypes.byref(out))
        return json.loads(self._take_present(out, "removal result"))

    # MARK: - MSAL's search

    def msal_search(self, credential_type: str, query: Optional[Dict[str, Any]] = None,
                    target: Optional[Iterable[str]] = None, now: int = 0) -> List[Entry]:
        """The entries MSAL Python's `TokenCache.search(credential_type, target, query)` yields, as
        a list of dicts, answered from the engine's index. `now`: seconds since 1970 (0: now)."""
        return self._result(self._lib.tokencache_search, _text(credential_type), _json(query or None),
                            _json(list(target)) if target else None, int(now))

    # MARK: - Entries

    def write_entries(self, document: Dict[str, Dict[str, Entry]]) -> Dict[str, Any]:
        """Writes the entries of an MSAL JSON document (a dict of sections of entries) as store
        items, replacing those of the same identity, in one atomic batch. Returns {"saved", "skipped"}."""
        return self._result(self._lib.tokencache_write_entries, _json(document))

    def remove_entries(self, document: Dict[str, Dict[str, Entry]]) -> Dict[str, Any]:
        """Removes the items the entries of an MSAL JSON document stand for, in one atomic batch.
        Returns {"removed": n}."""
        return self._result(self._lib.tokencache_remove_entries, _json(document))

    # MARK: - Blobs

    def blob_load(self, partition: Partition = "all", key: Optional[str] = None) -> Tuple[bytes, str]:
        """A partition ("all", "account" with a home account id, "client" with a client id) as an
        MSAL JSON document (bytes), with the version to store it back against."""
        blob, version_ = ctypes.c_void_p(), ctypes.c_void_p()
        self._call(self._lib.tokencache_blob_load, self._open_handle(), _PARTITIONS[partition], _text(key),
                   ctypes.byref(blob), ctypes.byref(version_))
        document = self._take_present(blob, "blob")
        return document, self._take_present(version_, "blob version").decode("utf-8")

    def blob_store(self, document: Union[bytes, str], version: Optional[str] = None, partition: Partition = "all",
                   key: Optional[str] = None, fail_on_conflict: bool = False) -> Dict[str, Any]:
        """Stores an MSAL JSON document back as a per-item merge against `version` (None: every
        entry is new). Returns the ABI's result: version, saved, removed, conflicts, ignored."""
        if isinstance(document, str):
            document = document.encode("utf-8")
        flags = _abi.BLOB_FAIL_ON_CONFLICT if fail_on_conflict else 0
        out = ctypes.c_void_p()
        self._call(self._lib.tokencache_blob_store, self._open_handle(), _PARTITIONS[partition], _text(key),
                   document, _text(version), flags, ctypes.byref(out))
        return json.loads(self._take_present(out, "store result"))

    def import_msal_json(self, document: Union[bytes, str]) -> Dict[str, Any]:
        """Writes the entries of an MSAL JSON cache (bytes or str) to the store, replacing items of
        the same identity, in one batch; top-level nodes other than the five sections are ignored."""
        parsed = json.loads(document)
        return self.write_entries({k: v for k, v in parsed.items() if k in _SECTIONS and isinstance(v, dict)})

    def export_msal_json(self) -> bytes:
        """Every entry of the store as an MSAL JSON document (bytes)."""
        return self.blob_load("all")[0]

    # MARK: - Change stamp

    def change_stamp(self) -> Tuple[int, int]:
        """The store's change stamp, a tuple: equal stamps mean no writer committed in between."""
        stamp = self._stamp.__class__()
        self._call(self._lib.tokencache_change_stamp, self._open_handle(), ctypes.byref(stamp))
        return (stamp.first, stamp.second)
