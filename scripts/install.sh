#!/usr/bin/env bash
# Builds the C ABI library in release and installs it under PREFIX:
#   PREFIX/lib/libtokencache.so.1 (+ libtokencache.so), PREFIX/include/tokencache.h,
#   PREFIX/lib/pkgconfig/tokencache.pc
# The Swift runtime and FoundationEssentials are linked into the library statically (swiftc
# -static-stdlib; no module links Foundation's internationalization, so no ICU comes with them), so a
# C program linked with `pkg-config --libs tokencache` runs with no Swift toolchain on its library
# path; the library needs only system libraries (libc, libstdc++, SQLite; libsecret and hiredis are
# loaded when used). scripts/check-binary-size.sh checks that.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${1:?usage: scripts/install.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
version=$(sed -n 's/^public let tokencacheVersion: StaticString = "\(.*\)"$/\1/p' Sources/TokenCacheVersion/Version.swift)
[ -n "$version" ] || { echo "install: cannot read the library version" >&2; exit 1; }

# SwiftPM's --static-swift-stdlib applies to executables only: the dynamic library asks swiftc for
# the static runtime itself, and exports only the C ABI (the version script hides the Swift runtime
# inside, so a host that loads another Swift runtime meets no clash). The folder and flags are
# scripts/release-build.sh's: after another script built, this one links at most.
source scripts/release-build.sh
flags=("${release_flags[@]}" --product tokencache-c "${library_link_flags[@]}")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift build "${flags[@]}" >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
# FoundationEssentials' static archive warns about its own use of mktemp at link time: not ours to fix.
grep -v "the use of \`mktemp' is dangerous" "$log" >&2 || true
bin=$(swift build "${flags[@]}" --show-bin-path)

install -d -m 0755 "$prefix/lib" "$prefix/include" "$prefix/lib/pkgconfig"
install -m 0755 "$bin/libtokencache-c.so" "$prefix/lib/libtokencache.so.1"
# Without debug info (27 MB with the symbol table kept, 18 MB with `strip`), and readable by
# valgrind 3.19 (Debian 12), which cannot read the DWARF 5 the Swift toolchain emits.
strip --strip-debug "$prefix/lib/libtokencache.so.1"
ln -sfn libtokencache.so.1 "$prefix/lib/libtokencache.so"
install -m 0644 include/tokencache.h "$prefix/include/tokencache.h"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" pkgconfig/tokencache.pc.in > "$prefix/lib/pkgconfig/tokencache.pc"
chmod 0644 "$prefix/lib/pkgconfig/tokencache.pc"
echo "installed tokencache $version under $prefix" >&2
# The loader's cache, so that programs (and the Python binding) find the library by name where the
# system looks (/usr/local/lib on Debian): updated when run as root; elsewhere, say how to find it.
if [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then
    ldconfig
fi
if ! { command -v ldconfig >/dev/null && ldconfig -p 2>/dev/null | grep -qF "$prefix/lib/libtokencache.so.1"; }; then
    echo "note: $prefix/lib is not where the system loader looks: link with pkg-config (its rpath finds it), or set TOKENCACHE_LIBRARY=$prefix/lib/libtokencache.so for the Python binding" >&2
fi
