"""The types of `tokencache_open`'s arguments: store specifications, open options, loading modes."""

from __future__ import annotations

import os
from typing import Literal, Optional, TypedDict, Union

#: A store specification as the CLI's ``--store`` takes it: ``"sqlite:PATH"``, ``"memory"``,
#: ``"secret-service"``, ``"secret-service:COLLECTION"``, ``"redis://[user:password@]host[:port][/db][?options]"``
#: (see ``docs/redis.md``); ``None`` opens what the CLI opens (``TOKENCACHE_STORE``, else the default file).
StoreSpecification = Optional[str]

#: What the engine keeps in memory: ``"whole_store"`` (the default: every item, for a desktop
#: user's cache) or ``"partitions"`` (only the accounts lookups touched, least recently used out,
#: for a server's store of many users; see ``partition_limit``).
Loading = Literal["whole_store", "partitions"]

#: Where a SQLite store's data key comes from.
KeySource = Literal["auto", "secret-service", "file"]

#: The items a ``"partitions"`` handle keeps when no ``partition_limit`` is given (the C ABI's default).
DEFAULT_PARTITION_LIMIT = 100_000


class OpenOptions(TypedDict, total=False):
    """The options of ``tokencache_open`` (``include/tokencache.h``); every member optional."""

    write_access_group: str
    """Where new items go (default: the first access group)."""
    expiration_buffer: int
    """Seconds before expiry an access token counts as expired (300)."""
    single_family_refresh_token: bool
    """Save family tokens as one FamilyRefreshToken item (False)."""
    legacy_adal_items: bool
    """Also write legacy ADAL entries on save, as ADAL 2.7+ (False)."""
    application_name: str
    """Recorded as the remover in wipe records (the process name)."""
    key: KeySource
    """A SQLite store's data-key source (``TOKENCACHE_KEY``, else ``"auto"``)."""
    loading: Loading
    """What the engine keeps in memory (``"whole_store"``)."""
    partition_limit: int
    """With ``loading="partitions"``: about how many items to keep (100,000)."""


def open_options(
    options: Optional[OpenOptions], loading: Optional[Loading], partition_limit: Optional[int]
) -> Optional[OpenOptions]:
    """`options` with the keyword arguments `loading` and `partition_limit` merged in.

    :raises ValueError: when a keyword contradicts `options`, or is not a valid value.
    """
    merged: OpenOptions = dict(options or {})  # type: ignore[assignment]
    for name, value in (("loading", loading), ("partition_limit", partition_limit)):
        if value is None:
            continue
        if name in merged and merged[name] != value:  # type: ignore[literal-required]
            raise ValueError("tokencache: %s=%r contradicts options[%r]=%r" % (
                name, value, name, merged[name]))  # type: ignore[literal-required]
        merged[name] = value  # type: ignore[literal-required]
    if "loading" in merged and merged["loading"] not in ("whole_store", "partitions"):
        raise ValueError("tokencache: loading must be \"whole_store\" or \"partitions\", not %r" % (merged["loading"],))
    if "partition_limit" in merged:
        limit = merged["partition_limit"]
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError("tokencache: partition_limit must be a positive integer, not %r" % (limit,))
        if merged.get("loading") != "partitions":
            raise ValueError("tokencache: partition_limit needs loading=\"partitions\"")
    return merged or None


def store_text(store: Union[StoreSpecification, os.PathLike]) -> Optional[str]:
    """A specification as text; a path (``os.PathLike``) is a SQLite store at that path."""
    if store is None or isinstance(store, str):
        return store
    if isinstance(store, os.PathLike):
        return "sqlite:" + os.fspath(store)
    raise TypeError("tokencache: a store specification is a str, an os.PathLike or None, not %s" % type(store).__name__)
