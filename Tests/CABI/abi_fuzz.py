"""Random calls through the C ABI (ctypes): malformed JSON, invalid UTF-8, NULLs, odd numbers,
unknown enum values. Passes when the process survives every call: the library must answer bad input
with an error, never abort. Usage: abi_fuzz.py LIBRARY [SEED] [CALLS]. Run by scripts/c-abi-test.sh."""
import ctypes, random, json, os, sys
lib = ctypes.CDLL(sys.argv[1])
P = ctypes.c_void_p
lib.tokencache_open.argtypes = [ctypes.c_char_p, P, ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(P), ctypes.POINTER(P)]
lib.tokencache_free.argtypes = [P]
lib.tokencache_error_free.argtypes = [P]
h = P()
assert lib.tokencache_open(b"memory", None, 0, None, ctypes.byref(h), None) == 0
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
random.seed(seed)
pieces = ['{', '}', '[', ']', '"', ':', ',', 'null', 'true', '1e999', '-0', '18446744073709551616', '"home_account_id"', '"client_id"',
          '"scopes"', '"authority"', '"https://login.microsoftonline.com/common"', '"https://"', '"http://x"', '"username"',
          '"family_id"', '"environment"', '"realm"', '\\u0000', '\\ud800', '\xff', 'é', ' ', '"AccessToken"', '"RefreshToken"',
          '"Account"', '"AppMetadata"', '"secret"', '"credential_type"', '"expires_in"', '"access_token"', '"client_info"', '"id_token"',
          '"eyJ1aWQiOiJhIiwidXRpZCI6ImIifQ"', '"a.b.c"', '-1', '9223372036854775807', '"1"', '{}', '[]']
def rnd():
    r = random.random()
    if r < 0.1: return None
    s = ''.join(random.choice(pieces) for _ in range(random.randint(0, 30)))
    b = s.encode('utf-8', 'surrogatepass') if random.random() < 0.9 else os.urandom(random.randint(0, 40)).replace(b'\0', b'x')
    return b
out = P(); out2 = P(); err = P()
stamp = (ctypes.c_uint64 * 2)()
funcs = ["lookup_access_token", "lookup_refresh_token", "lookup_id_token", "lookup_app_metadata", "accounts", "find_account", "write_entries", "remove_entries"]
n = 0
for i in range(int(sys.argv[3]) if len(sys.argv) > 3 else 20000):
    f = random.choice(funcs + ["save", "search", "blob_load", "blob_store", "remove_account", "open"])
    if f in funcs:
        getattr(lib, "tokencache_" + f)(h, rnd(), ctypes.byref(out), ctypes.byref(err))
    elif f == "save":
        lib.tokencache_save(h, rnd(), rnd(), ctypes.byref(out), ctypes.byref(err))
    elif f == "search":
        lib.tokencache_search(h, random.choice([b"AccessToken", b"RefreshToken", b"IdToken", b"Account", b"AppMetadata", rnd()]), rnd(), rnd(), ctypes.c_int64(random.choice([0, -5, 2**62, 1700000000])), ctypes.byref(out), ctypes.byref(err))
    elif f == "blob_load":
        lib.tokencache_blob_load(h, random.randint(-1, 3), rnd(), ctypes.byref(out), ctypes.byref(out2), ctypes.byref(err))
    elif f == "blob_store":
        lib.tokencache_blob_store(h, random.randint(-1, 3), rnd(), rnd(), random.choice([rnd(), b"1.", b"1.AAAAAAAAAAAAAAAAAAAAAA", b"1.!!"]), random.randint(0, 2), ctypes.byref(out), ctypes.byref(err))
    elif f == "remove_account":
        lib.tokencache_remove_account(h, rnd(), rnd(), ctypes.byref(out), ctypes.byref(err))
    else:
        h2 = P()
        if lib.tokencache_open(rnd(), None, 0, rnd(), ctypes.byref(h2), ctypes.byref(err)) == 0:
            lib.tokencache_close(h2)
    lib.tokencache_free(out); out.value = None
    lib.tokencache_free(out2); out2.value = None
    lib.tokencache_error_free(err); err.value = None
    n += 1
print("abi_fuzz: %d calls survived (seed %d)" % (n, seed))
