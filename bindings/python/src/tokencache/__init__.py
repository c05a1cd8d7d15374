"""tokencache for Python: the C ABI of libtokencache through ctypes, and (in `tokencache.msal`) a
token cache for MSAL Python kept in the tokencache store.

    import tokencache
    with tokencache.Cache() as cache:          # the CLI's store
        print(cache.accounts())
"""

from .cache import Cache, abi_version, version
from .errors import (
    BadInputError,
    ConflictError,
    DamagedError,
    InternalError,
    LibraryNotFoundError,
    NotFoundError,
    PermissionDeniedError,
    TokenCacheError,
    UnavailableError,
)

__all__ = [
    "Cache", "version", "abi_version", "TokenCacheError", "NotFoundError", "BadInputError",
    "UnavailableError", "PermissionDeniedError", "ConflictError", "DamagedError", "InternalError",
    "LibraryNotFoundError",
]


def __getattr__(name):
    # `tokencache.__version__`: the installed distribution's version, which the build takes from
    # the one place the release version is written; from a source tree, the library's.
    if name == "__version__":
        from importlib import metadata
        try:
            return metadata.version("tokencache")
        except metadata.PackageNotFoundError:
            return version()
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
