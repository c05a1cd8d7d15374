#!/bin/sh
# Installs this tokencache tree under PREFIX (default /usr/local):
#   PREFIX/bin/tokencache, PREFIX/lib/libtokencache.so.1 (+ libtokencache.so),
#   PREFIX/include/tokencache.h, PREFIX/lib/pkgconfig/tokencache.pc (its prefix set to PREFIX),
#   the man page and the bash, zsh and fish completions under PREFIX/share.
# The binaries need only system libraries (libc, libstdc++, SQLite); the Secret Service and Redis
# stores load libsecret-1 and hiredis 0.14 when they are used.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-/usr/local}
case "$prefix" in
    /*) ;;
    *) mkdir -p "$prefix" && prefix=$(cd "$prefix" && pwd) ;;
esac

install -d -m 0755 "$prefix/bin" "$prefix/lib/pkgconfig" "$prefix/include" "$prefix/share/man/man1" \
    "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
    "$prefix/share/fish/vendor_completions.d"
install -m 0755 "$here/bin/tokencache" "$prefix/bin/tokencache"
install -m 0755 "$here/lib/libtokencache.so.1" "$prefix/lib/libtokencache.so.1"
ln -sfn libtokencache.so.1 "$prefix/lib/libtokencache.so"
install -m 0644 "$here/include/tokencache.h" "$prefix/include/tokencache.h"
sed "s|^prefix=.*|prefix=$prefix|" "$here/lib/pkgconfig/tokencache.pc" > "$prefix/lib/pkgconfig/tokencache.pc"
chmod 0644 "$prefix/lib/pkgconfig/tokencache.pc"
install -m 0644 "$here/share/man/man1/tokencache.1" "$prefix/share/man/man1/tokencache.1"
install -m 0644 "$here/share/bash-completion/completions/tokencache" "$prefix/share/bash-completion/completions/tokencache"
install -m 0644 "$here/share/zsh/site-functions/_tokencache" "$prefix/share/zsh/site-functions/_tokencache"
install -m 0644 "$here/share/fish/vendor_completions.d/tokencache.fish" "$prefix/share/fish/vendor_completions.d/tokencache.fish"
# Root installing into a directory the loader searches: refresh its cache.
if [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null 2>&1; then
    ldconfig
fi
echo "installed tokencache under $prefix"
echo "  C programs: PKG_CONFIG_PATH=$prefix/lib/pkgconfig cc app.c \$(pkg-config --cflags --libs tokencache)"
