"""Finding and loading libtokencache, once per process."""

import ctypes
import ctypes.util
import os
import threading

from .errors import LibraryNotFoundError

_lock = threading.Lock()
_library = None
# Where the wheel puts the library: inside this package.
BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libtokencache.so.1")


def _candidates():
    path = os.environ.get("TOKENCACHE_LIBRARY")
    if path:
        return [path], "TOKENCACHE_LIBRARY"
    if os.path.exists(BUNDLED):
        return [BUNDLED], "the copy installed with this package"
    names = ["libtokencache.so"]
    found = ctypes.util.find_library("tokencache")
    if found and found not in names:
        names.append(found)
    return names, None


def open_library(path=None):
    """Loads libtokencache: `path`, else `TOKENCACHE_LIBRARY`, else the copy the wheel bundles in
    this package, else the system loader's search (`LD_LIBRARY_PATH`, the ld.so cache, the default
    directories)."""
    names, source = ([path], "the given path") if path else _candidates()
    errors = []
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError as error:
            errors.append(str(error))
    if source:
        raise LibraryNotFoundError("cannot load libtokencache from %s (%s): %s" % (source, names[0], "; ".join(errors)))
    raise LibraryNotFoundError(
        "cannot find libtokencache: install it (scripts/install.sh PREFIX) where the system loader "
        "looks, or set TOKENCACHE_LIBRARY to the path of libtokencache.so (%s)" % "; ".join(errors))


def library():
    """The process's libtokencache, loaded and declared on first use."""
    global _library
    with _lock:
        if _library is None:
            from . import _abi
            _library = _abi.declare(open_library())
        return _library
