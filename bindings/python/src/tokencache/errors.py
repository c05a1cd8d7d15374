"""Exceptions of the tokencache binding, one per error category of the C ABI.

The category numbers are the ABI's (`TOKENCACHE_ERROR_*` in `tokencache.h`); they never change. A
message never contains a token or any other secret.
"""

from __future__ import annotations

from typing import Dict, Optional, Type


class TokenCacheError(Exception):
    """Any failure reported by libtokencache. `category` is the ABI's number, `message` its text."""

    category: int = 7

    def __init__(self, message: str, category: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        if category is not None:
            self.category = category


class NotFoundError(TokenCacheError):
    """What was asked for does not exist (an account, a collection, a file)."""

    category = 1


class BadInputError(TokenCacheError, ValueError):
    """The request or the data handed in cannot be used; retrying the same input fails the same way."""

    category = 2


class UnavailableError(TokenCacheError):
    """Something the operation needs cannot be reached now (a store, the keyring, a data key)."""

    category = 3


class PermissionDeniedError(TokenCacheError, PermissionError):
    """The operation is not allowed (a locked keyring, file permissions, an access group not opened)."""

    category = 4


class ConflictError(TokenCacheError):
    """Another writer changed the same thing since it was read."""

    category = 5


class DamagedError(TokenCacheError):
    """Stored data cannot be read (a corrupt database, a payload failing authentication)."""

    category = 6


class InternalError(TokenCacheError):
    """A failure inside tokencache that no input explains."""

    category = 7


class LibraryNotFoundError(TokenCacheError, OSError):
    """libtokencache could not be loaded (neither TOKENCACHE_LIBRARY nor the system loader found it)."""

    category = 3


BY_CATEGORY: Dict[int, Type[TokenCacheError]] = {cls.category: cls for cls in (
    NotFoundError, BadInputError, UnavailableError, PermissionDeniedError, ConflictError,
    DamagedError, InternalError)}


def from_category(category: int, message: str) -> TokenCacheError:
    """The exception for an ABI error category (unknown numbers become `TokenCacheError`)."""
    cls = BY_CATEGORY.get(category)
    return cls(message) if cls else TokenCacheError(message, category)
