#!/usr/bin/env bash
# Builds the C ABI library in release and installs it under PREFIX:
#   PREFIX/lib/libtokencache.so.1 (+ libtokencache.so), PREFIX/include/tokencache.h,
#   PREFIX/lib/pkgconfig/tokencache.pc
# The Swift runtime and Foundation are linked into the library statically (--static-swift-stdlib),
# so a C program linked with `pkg-config --libs tokencache` runs with no Swift toolchain on its
# library path; the library needs only system libraries (libc, libstdc++, SQLite, GLib, libsecret).
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${1:?usage: scripts/install.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
version=$(sed -n 's/^let libraryVersion: StaticString = "\(.*\)"$/\1/p' Sources/TokenCacheC/Version.swift)
[ -n "$version" ] || { echo "install: cannot read the library version" >&2; exit 1; }

swift build -c release --product tokencache-c --static-swift-stdlib -Xlinker -soname=libtokencache.so.1
bin=$(swift build -c release --product tokencache-c --static-swift-stdlib -Xlinker -soname=libtokencache.so.1 --show-bin-path)

install -d -m 0755 "$prefix/lib" "$prefix/include" "$prefix/lib/pkgconfig"
install -m 0755 "$bin/libtokencache-c.so" "$prefix/lib/libtokencache.so.1"
ln -sfn libtokencache.so.1 "$prefix/lib/libtokencache.so"
install -m 0644 include/tokencache.h "$prefix/include/tokencache.h"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" pkgconfig/tokencache.pc.in > "$prefix/lib/pkgconfig/tokencache.pc"
chmod 0644 "$prefix/lib/pkgconfig/tokencache.pc"
echo "installed tokencache $version under $prefix" >&2
