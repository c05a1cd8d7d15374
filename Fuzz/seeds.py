#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora from the real cache files in Tests/Fixtures.

The seeds go to a scratch folder
given on the command line, one sub-folder per target. Besides the files themselves, each unified-JSON
entry becomes a seed of its own for the item payload decoder and the keychain-items reader, and a few
small synthetic inputs cover the edges (empty, nesting, numbers, escapes).
"""
import base64
import json
import os
import sys

fixtures, out = sys.argv[1], sys.argv[2]

# FuzzUnifiedItem's first byte picks the type code; these are the indices of its table.
TYPE_INDEX = {None: 0, 1000: 1, 1001: 2, 1002: 3, 1003: 4, 1004: 5, 2000: 6, 2001: 7, 2002: 8,
              2003: 9, 2004: 10, 2005: 11, 2006: 12, 2007: 13, 2008: 14, 2009: 15, 3001: 16, 5001: 17}
SECTION_TYPE = {"accesstoken": 2001, "refreshtoken": 2002, "idtoken": 2003, "account": 1003,
                "appmetadata": 3001}

def target(name):
    path = os.path.join(out, name)
    os.makedirs(path, exist_ok=True)
    return path

def put(name, seed, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(target(name), seed), "wb") as f:
        f.write(data)

def fixture_files():
    for root, _, files in os.walk(fixtures):
        for file in sorted(files):
            if file not in ("README.md", "LICENSE"):
                yield os.path.join(root, file)

keychain_items = []
for path in fixture_files():
    name = os.path.relpath(path, fixtures).replace("/", "_")
    with open(path, "rb") as f:
        raw = f.read()
    if path.endswith(".bplist"):
        put("FuzzKeyedArchive", name, raw)
        continue
    if path.endswith(".bin"):  # the MSAL.NET 2.x dictionary
        put("FuzzMSALV2", name, raw)
        put("FuzzMSALJSON", name, raw)
        continue
    if path.endswith(".serialized"):  # the ADAL.NET v3 blob
        put("FuzzADALNetV3", name, raw)
        continue
    if not path.endswith(".json"):
        continue
    put("FuzzMSALJSON", name, raw)
    try:
        document = json.loads(raw.decode("utf-8-sig").replace(",\n}", "\n}").replace(",\r\n}", "\r\n}"))
    except ValueError:
        continue  # trailing commas elsewhere: the file itself is still a seed
    for section, entries in document.items():
        code = SECTION_TYPE.get(section.lower())
        if code is None or not isinstance(entries, dict):
            continue
        for i, entry in enumerate(entries.values()):
            payload = json.dumps(entry).encode()
            put("FuzzUnifiedItem", f"{name}_{section}_{i}", bytes([TYPE_INDEX[code]]) + payload)
            keychain_items.append({
                "access_group": "com.microsoft.adalcache",
                "account": "%s-%s" % (entry.get("home_account_id") or "", entry.get("environment") or ""),
                "service": "%s-%s" % (section.lower(), entry.get("client_id") or ""),
                "generic": entry.get("client_id"), "type": code,
                "data": base64.b64encode(payload).decode(),
            })

# The MSAL.NET 2.x format is also built from the unified entries, as MSAL.NET 2.x wrote it.
for path in fixture_files():
    if path.endswith("ExpectedTokenCache.json"):
        with open(path, "rb") as f:
            text = f.read().decode("utf-8-sig").replace(",\r\n", "\r\n").replace(",\n", "\n")
        try:
            document = json.loads(text)
        except ValueError:
            break
        v2 = []
        for section, key in (("AccessToken", "access_tokens"), ("RefreshToken", "refresh_tokens"),
                             ("IdToken", "id_tokens"), ("Account", "accounts")):
            v2.append({"Key": key, "Value": [json.dumps(e) for e in document.get(section, {}).values()]})
        put("FuzzMSALV2", "synthetic_from_ExpectedTokenCache", json.dumps(v2))

for i in range(0, len(keychain_items), 4):
    put("FuzzKeychainItems", f"items_{i}", json.dumps(keychain_items[i:i + 4], indent=2))
put("FuzzKeychainItems", "odd_generic", json.dumps([
    {"access_group": "g", "account": "a", "service": "s", "generic": {"base64": "/w=="}, "type": None,
     "data": "AA==", "created": "2024-01-01T00:00:00Z"},
    {"access_group": "g", "account": "", "service": "", "generic": None, "type": 4294967295, "data": ""}]))

# Small synthetic edges for every JSON reader.
for name in ("FuzzMSALJSON", "FuzzMSALV2", "FuzzKeychainItems"):
    put(name, "edge_empty", b"")
    put(name, "edge_nesting", b"[" * 600 + b"]" * 600)
    put(name, "edge_numbers", b'[1e999, -0, 1.5e-400, 18446744073709551616, -9223372036854775809]')
    put(name, "edge_escapes", b'{"a": "\\ud800\\udc00\\u0000\\ud800", "\\u00e9": "x"}')
put("FuzzMSALJSON", "edge_sections",
    b'{"AccessToken": {"k": {"credential_type": "AccessToken", "secret": "s", "home_account_id": "u.t",'
    b' "environment": "login.microsoftonline.com", "client_id": "c", "realm": "t", "target": "a b",'
    b' "cached_at": "1", "expires_on": 1e30, "extended_expires_on": "-62135596800"}},'
    b' "accesstoken": null, "Account": {"k": {"home_account_id": "u.t", "environment": "e",'
    b' "realm": "r", "local_account_id": "l", "username": "n", "authority_type": "MSSTS",'
    b' "tenantProfiles": ["{\\"tenantId\\": \\"t2\\"}"]}}}')
put("FuzzUnifiedItem", "edge_untyped", b"\x00anything")
put("FuzzUnifiedItem", "edge_numbers", bytes([7]) + b'{"cached_at": 1e308, "expires_on": -1e308, "secret": "s"}')
put("FuzzKeyedArchive", "edge_bplist_header", b"bplist00")
# ADAL.NET v3: version 3, one entry with a 7-bit length spilling into a second byte, an empty blob.
put("FuzzADALNetV3", "edge_empty_v3", b"\x03\x00\x00\x00\x00\x00\x00\x00")
put("FuzzADALNetV3", "edge_long_length", b"\x03\x00\x00\x00\x01\x00\x00\x00\x80\x01" + b"k" * 128 + b"\x02{}")

# The import chain: every fixture behind a format selector byte (0: detect; the order of
# ImportFormat.allCases after it: msal-json, msal-v2, keychain-items, adal-v3, adal-macos), keychain
# items holding the unified entries and each legacy ADAL archive (generic "1", as ADAL stores them).
for path in fixture_files():
    name = os.path.relpath(path, fixtures).replace("/", "_")
    with open(path, "rb") as f:
        raw = f.read()
    put("FuzzImportChain", name, b"\x00" + raw)
legacy = []
for path in fixture_files():
    if path.endswith(".bplist"):
        with open(path, "rb") as f:
            legacy.append({"access_group": "com.microsoft.adalcache", "account": "bXlmYWtldXNlckBjb250b3NvLmNvbQ",
                           "service": "MSOpenTech.ADAL.1|aHR0cHM6Ly9sb2dpbi5taWNyb3NvZnRvbmxpbmUuY29tL2NvbW1vbg|CC3513A0-0E69-4B4D-97FC-DFB6C91EE132|MjdhZDgzYzktZmM1ZS00YTZjLWFmMDEtMzZlZGE0MmVkMThm",
                           "generic": "1", "type": None, "data": base64.b64encode(f.read()).decode()})
put("FuzzImportChain", "keychain_items_unified", b"\x03" + json.dumps(keychain_items[:12], indent=2).encode())
put("FuzzImportChain", "keychain_items_legacy", b"\x03" + json.dumps(legacy, indent=2).encode())
