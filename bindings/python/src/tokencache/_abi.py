"""The C declarations of tokencache.h (ABI version 1), for ctypes."""

import ctypes

ABI_VERSION = 1

PARTITION_ALL = 0
PARTITION_ACCOUNT = 1
PARTITION_CLIENT = 2
BLOB_FAIL_ON_CONFLICT = 1


class Stamp(ctypes.Structure):
    _fields_ = [("first", ctypes.c_uint64), ("second", ctypes.c_uint64)]


_handle = ctypes.c_void_p
_error_out = ctypes.POINTER(ctypes.c_void_p)
_string_out = ctypes.POINTER(ctypes.c_void_p)  # char ** kept as void * so ctypes does not copy and lose it
_int = ctypes.c_int
_str = ctypes.c_char_p

_PROTOTYPES = {
    "tokencache_version": (_str, []),
    "tokencache_abi_version": (_int, []),
    "tokencache_free": (None, [ctypes.c_void_p]),
    "tokencache_error_free": (None, [ctypes.c_void_p]),
    "tokencache_error_category_of": (_int, [ctypes.c_void_p]),
    "tokencache_error_message": (_str, [ctypes.c_void_p]),
    "tokencache_error_remedy": (_str, [ctypes.c_void_p]),
    "tokencache_open": (_int, [_str, ctypes.POINTER(_str), ctypes.c_size_t, _str,
                               ctypes.POINTER(_handle), _error_out]),
    "tokencache_close": (None, [_handle]),
    "tokencache_save": (_int, [_handle, _str, _str, _string_out, _error_out]),
    "tokencache_lookup_access_token": (_int, [_handle, _str, _string_out, _error_out]),
    "tokencache_lookup_refresh_token": (_int, [_handle, _str, _string_out, _error_out]),
    "tokencache_lookup_id_token": (_int, [_handle, _str, _string_out, _error_out]),
    "tokencache_lookup_app_metadata": (_int, [_handle, _str, _string_out, _error_out]),
    "tokencache_accounts": (_int, [_handle, _str, _string_out, _error_out]),
    "tokencache_find_account": (_int, [_handle, _str, _string_out, _error_out]),
    "tokencache_remove_account": (_int, [_handle, _str, _str, _string_out, _error_out]),
    "tokencache_search": (_int, [_handle, _str, _str, _str, ctypes.c_int64, _string_out, _error_out]),
    "tokencache_write_entries": (_int, [_handle, _str, _string_out, _error_out]),
    "tokencache_remove_entries": (_int, [_handle, _str, _string_out, _error_out]),
    "tokencache_blob_load": (_int, [_handle, _int, _str, _string_out, _string_out, _error_out]),
    "tokencache_blob_store": (_int, [_handle, _int, _str, _str, _str, ctypes.c_uint, _string_out, _error_out]),
    "tokencache_change_stamp": (_int, [_handle, ctypes.POINTER(Stamp), _error_out]),
}


def declare(library: ctypes.CDLL) -> ctypes.CDLL:
    """Sets the argument and result types of every function of the header on `library`."""
    for name, (restype, argtypes) in _PROTOTYPES.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes
    return library
