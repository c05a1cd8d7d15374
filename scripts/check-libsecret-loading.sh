#!/usr/bin/env bash
# Checks that libsecret is loaded at run time, never linked:
#
#   bash scripts/check-libsecret-loading.sh [BUILD_DIR]     (default .build/debug, already built)
#
# 1. No built product (the CLI, the test bundle, any shared library) has a NEEDED entry for
#    libsecret, GLib, GObject or GIO, so each one starts on a machine without them.
# 2. When the libsecret and GLib headers are installed (libsecret-1-dev), the declarations in
#    Sources/CLibsecret/include/tokencache_libsecret.h, which the build uses instead of those headers,
#    are compiled against them: every function type and constant must match, or this fails.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-.build/debug}"

products=()
for candidate in "$build/tokencache" "$build"/*.xctest "$build"/lib*.so; do
    [ -f "$candidate" ] && products+=("$candidate")
done
if [ "${#products[@]}" -eq 0 ] || [ ! -f "$build/tokencache" ]; then
    echo "error: no tokencache executable in $build; build first (swift build --build-tests)" >&2
    exit 1
fi
failed=0
for product in "${products[@]}"; do
    needed=$(readelf -d "$product" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    if linked=$(grep -E '^lib(secret|glib|gobject|gio)-' <<<"$needed"); then
        echo "error: $product links $(tr '\n' ' ' <<<"$linked")(libsecret must be loaded with dlopen)" >&2
        failed=1
    else
        echo "ok: $product has no libsecret/GLib NEEDED entry"
    fi
done

compiler=$(command -v cc || command -v clang || true)
if [ -n "$compiler" ] && pkg-config --exists libsecret-1 2>/dev/null; then
    check=$(mktemp -d)
    trap 'rm -rf "$check"' EXIT
    cat >"$check/abi.c" <<'EOF'
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>
#define TOKENCACHE_LIBSECRET_SYSTEM_HEADERS 1
#include "tokencache_libsecret.h"
// Each real function must convert to the declared pointer type without a cast.
#define CHECK(type, name, parameters) type (*check_##name) parameters = name;
void check(void) {
    TOKENCACHE_LIBSECRET_FUNCTIONS(CHECK)
}
_Static_assert(TOKENCACHE_SECRET_SERVICE_OPEN_SESSION == SECRET_SERVICE_OPEN_SESSION, "open session");
_Static_assert(TOKENCACHE_SECRET_COLLECTION_NONE == SECRET_COLLECTION_NONE, "collection none");
_Static_assert(TOKENCACHE_SECRET_ITEM_NONE == SECRET_ITEM_NONE, "item none");
_Static_assert(TOKENCACHE_SECRET_ITEM_CREATE_REPLACE == SECRET_ITEM_CREATE_REPLACE, "create replace");
_Static_assert(TOKENCACHE_SECRET_ITEM_CREATE_NONE == SECRET_ITEM_CREATE_NONE, "create none");
_Static_assert(TOKENCACHE_SECRET_ERROR_IS_LOCKED == SECRET_ERROR_IS_LOCKED, "is locked");
_Static_assert(TOKENCACHE_SECRET_ERROR_NO_SUCH_OBJECT == SECRET_ERROR_NO_SUCH_OBJECT, "no such object");
_Static_assert(TOKENCACHE_G_IO_ERROR_CANCELLED == G_IO_ERROR_CANCELLED, "cancelled");
EOF
    if "$compiler" -std=gnu11 -fsyntax-only -Werror -Wall -Wno-unused-variable -Wno-enum-compare \
        $(pkg-config --cflags libsecret-1) -ISources/CLibsecret/include "$check/abi.c"; then
        echo "ok: the shim's libsecret/GLib declarations match the installed headers"
    else
        echo "error: Sources/CLibsecret/include/tokencache_libsecret.h does not match the libsecret/GLib headers" >&2
        failed=1
    fi
else
    echo "note: no C compiler or no libsecret-1-dev headers; the shim's declarations were not compared with them"
fi
exit "$failed"
