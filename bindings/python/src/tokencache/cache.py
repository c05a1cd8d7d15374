"""`Cache`: one open tokencache store and its engine, through the C ABI (tokencache.h)."""

import ctypes
import json
import threading

from . import _abi, _library
from .errors import InternalError, NotFoundError, from_category

_RAISE = object()  # a lookup's NotFoundError is raised rather than turned into a value
_SECTIONS = ("AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata")
_PARTITIONS = {"all": _abi.PARTITION_ALL, "account": _abi.PARTITION_ACCOUNT, "client": _abi.PARTITION_CLIENT}


def _text(value):
    return None if value is None else value.encode("utf-8")


def _json(value):
    return None if value is None else json.dumps(value).encode("utf-8")


def version():
    """libtokencache's version, e.g. "0.11.0"."""
    return _library.library().tokencache_version().decode("utf-8")


def abi_version():
    """The ABI version libtokencache implements (this binding is written for 1)."""
    return _library.library().tokencache_abi_version()


class Cache:
    """An open tokencache store with its engine: lookups, accounts, MSAL's search, blobs.

    :param store: a store specification as the CLI's ``--store`` takes it (``"sqlite:PATH"``,
        ``"memory"``, ``"secret-service"``, ``"secret-service:COLLECTION"``); ``None`` opens what the
        CLI opens (``TOKENCACHE_STORE``, else ``$XDG_DATA_HOME/tokencache/cache.sqlite``).
    :param access_groups: the access groups to open, the first receiving writes; default: the CLI's
        (``TOKENCACHE_ACCESS_GROUPS``, else ``com.microsoft.adalcache``).
    :param options: the ABI's open options (``expiration_buffer``, ``key``, ...), as a dict.

    Entries come back as dicts in MSAL's JSON entry form; failures raise the
    :class:`~tokencache.errors.TokenCacheError` subclass of their category. Safe to use from
    several threads, `close()` included: calls already inside the library finish before the store
    is freed, and calls made after `close()` raise ``ValueError``.
    """

    def __init__(self, store=None, access_groups=None, *, options=None):
        self._lib = _library.library()
        if self._lib.tokencache_abi_version() != _abi.ABI_VERSION:
            raise InternalError("libtokencache implements ABI %d; this binding needs ABI %d" % (
                self._lib.tokencache_abi_version(), _abi.ABI_VERSION))
        groups = [_text(g) for g in (access_groups or [])]
        array = (ctypes.c_char_p * len(groups))(*groups) if groups else None
        handle = ctypes.c_void_p()
        self._handle = None
        self._closed = False
        self._call(self._lib.tokencache_open, _text(store), array, len(groups), _json(options), ctypes.byref(handle))
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

    def _error(self, status, error):
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

    def _take(self, pointer):
        """The JSON text of a result string, which is freed."""
        if not pointer.value:
            return None
        try:
            return ctypes.string_at(pointer.value)
        finally:
            self._lib.tokencache_free(pointer)

    def _result(self, function, *arguments, missing=_RAISE):
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

    def save(self, request, response):
        """The engine's save of a token response (`request`: authority, client_id, scopes...;
        `response`: the token endpoint's JSON, as a dict). Returns what was saved."""
        return self._result(self._lib.tokencache_save, _json(request), _json(response))

    def access_token(self, **query):
        """The AccessToken entry for `query` (home_account_id, environment, client_id, scopes...), or None."""
        return self._result(self._lib.tokencache_lookup_access_token, _json(query), missing=None)

    def refresh_token(self, **query):
        """The RefreshToken entry for `query` (client_id, home_account_id or username...), or None."""
        return self._result(self._lib.tokencache_lookup_refresh_token, _json(query), missing=None)

    def id_token(self, **query):
        """The IdToken entry for `query` (home_account_id, client_id, environment...), or None."""
        return self._result(self._lib.tokencache_lookup_id_token, _json(query), missing=None)

    def app_metadata(self, **query):
        """The AppMetadata entry for `query` (client_id, environment), or None."""
        return self._result(self._lib.tokencache_lookup_app_metadata, _json(query), missing=None)

    # MARK: - Accounts

    def accounts(self, client_id=None, environment=None):
        """Account entries (one per tenant record), optionally those signed in to `client_id`."""
        filter_ = {k: v for k, v in (("client_id", client_id), ("environment", environment)) if v}
        return self._result(self._lib.tokencache_accounts, _json(filter_ or None))

    def find_account(self, **query):
        """One account's Account entries (by home_account_id or username), or []."""
        return self._result(self._lib.tokencache_find_account, _json(query), missing=[])

    def remove_account(self, home_account_id, client_id=None):
        """Signs the account out of `client_id` (every app when None). Returns what was removed."""
        out = ctypes.c_void_p()
        self._call(self._lib.tokencache_remove_account, self._open_handle(), _text(home_account_id),
                   _text(client_id), ctypes.byref(out))
        return json.loads(self._take(out))

    # MARK: - MSAL's search

    def msal_search(self, credential_type, query=None, target=None, now=0):
        """The entries MSAL Python's `TokenCache.search(credential_type, target, query)` yields, as
        a list of dicts, answered from the engine's index. `now`: seconds since 1970 (0: now)."""
        return self._result(self._lib.tokencache_search, _text(credential_type), _json(query or None),
                            _json(list(target)) if target else None, int(now))

    # MARK: - Entries

    def write_entries(self, document):
        """Writes the entries of an MSAL JSON document (a dict of sections of entries) as store
        items, replacing those of the same identity, in one atomic batch. Returns {"saved", "skipped"}."""
        return self._result(self._lib.tokencache_write_entries, _json(document))

    def remove_entries(self, document):
        """Removes the items the entries of an MSAL JSON document stand for, in one atomic batch.
        Returns {"removed": n}."""
        return self._result(self._lib.tokencache_remove_entries, _json(document))

    # MARK: - Blobs

    def blob_load(self, partition="all", key=None):
        """A partition ("all", "account" with a home account id, "client" with a client id) as an
        MSAL JSON document (bytes), with the version to store it back against."""
        blob, version_ = ctypes.c_void_p(), ctypes.c_void_p()
        self._call(self._lib.tokencache_blob_load, self._open_handle(), _PARTITIONS[partition], _text(key),
                   ctypes.byref(blob), ctypes.byref(version_))
        document = self._take(blob)
        return document, self._take(version_).decode("utf-8")

    def blob_store(self, document, version=None, partition="all", key=None, fail_on_conflict=False):
        """Stores an MSAL JSON document back as a per-item merge against `version` (None: every
        entry is new). Returns the ABI's result: version, saved, removed, conflicts, ignored."""
        if isinstance(document, str):
            document = document.encode("utf-8")
        flags = _abi.BLOB_FAIL_ON_CONFLICT if fail_on_conflict else 0
        out = ctypes.c_void_p()
        self._call(self._lib.tokencache_blob_store, self._open_handle(), _PARTITIONS[partition], _text(key),
                   document, _text(version), flags, ctypes.byref(out))
        return json.loads(self._take(out))

    def import_msal_json(self, document):
        """Writes the entries of an MSAL JSON cache (bytes or str) to the store, replacing items of
        the same identity, in one batch; top-level nodes other than the five sections are ignored."""
        parsed = json.loads(document)
        return self.write_entries({k: v for k, v in parsed.items() if k in _SECTIONS and isinstance(v, dict)})

    def export_msal_json(self):
        """Every entry of the store as an MSAL JSON document (bytes)."""
        return self.blob_load("all")[0]

    # MARK: - Change stamp

    def change_stamp(self):
        """The store's change stamp, a tuple: equal stamps mean no writer committed in between."""
        stamp = self._stamp.__class__()
        self._call(self._lib.tokencache_change_stamp, self._open_handle(), ctypes.byref(stamp))
        return (stamp.first, stamp.second)
