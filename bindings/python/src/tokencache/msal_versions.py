"""Which MSAL Python versions `tokencache.msal` works with.

The plugin overrides `add`, `modify`, `search` and the private `_get_access_token` /
`_get_app_metadata` of `msal.TokenCache`, whose behaviour is known for the versions tested
(`scripts/msal-matrix.sh` runs the behaviour tests against each).
"""

from __future__ import annotations

import re
import threading
import warnings
from typing import Optional, Tuple

#: The MSAL Python releases the behaviour tests run against: the newest patch of every minor
#: release from 1.31 to 1.39. Other patches of these minor releases are accepted too.
SUPPORTED_MSAL_VERSIONS: Tuple[str, ...] = (
    "1.31.1", "1.32.3", "1.33.0", "1.34.0", "1.35.1", "1.36.0", "1.37.0", "1.38.0", "1.39.0")

_OLDEST = (1, 31)
_NEWEST = (1, 39)
_warned = False
_warned_lock = threading.Lock()


class UnsupportedMSALVersionError(RuntimeError):
    """The installed MSAL Python is one this plugin cannot work with (older than 1.31, or not 1.x)."""


class UntestedMSALVersionWarning(UserWarning):
    """The installed MSAL Python is a 1.x release newer than the ones this plugin was tested with."""


def _minor(version: str) -> Optional[Tuple[int, int]]:
    match = re.match(r"(\d+)\.(\d+)(?:\.|$)", version)
    return (int(match.group(1)), int(match.group(2))) if match else None


def check_msal_version(version: Optional[str] = None) -> None:
    """Accepts the tested minor releases; warns once for a newer 1.x release; refuses the rest.

    :param version: the version to check; default: the installed ``msal.__version__``.
    :raises UnsupportedMSALVersionError: for a release older than 1.31, a 2.x or later, or a
        version that cannot be read.
    """
    global _warned
    if version is None:
        import msal

        version = getattr(msal, "__version__", "unknown")
    minor = _minor(version)
    if minor is not None and _OLDEST <= minor <= _NEWEST:
        return
    if minor is not None and minor[0] == _NEWEST[0] and minor > _NEWEST:
        with _warned_lock:
            if _warned:
                return
            _warned = True
        warnings.warn(
            "tokencache.msal is tested with MSAL Python %s to %s; this is %s, which may change what "
            "the plugin relies on. Report a difference at the tokencache project."
            % (SUPPORTED_MSAL_VERSIONS[0], SUPPORTED_MSAL_VERSIONS[-1], version),
            UntestedMSALVersionWarning, stacklevel=3)
        return
    raise UnsupportedMSALVersionError(
        "tokencache.msal supports MSAL Python %s to %s (and newer 1.x releases, with a warning); "
        "this is %s. Install a supported version (pip install 'msal>=%s,<2')."
        % (SUPPORTED_MSAL_VERSIONS[0], SUPPORTED_MSAL_VERSIONS[-1], version, SUPPORTED_MSAL_VERSIONS[0]))
