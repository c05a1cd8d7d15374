#!/usr/bin/env bash
# Builds libtokencache1, libtokencache-dev and tokencache (.deb, with dpkg-deb) from binaries built
# and stripped by scripts/package.sh, which calls this:
#   build-debs.sh VERSION ARCH MULTIARCH LIBRARY CLI SHARE WORK OUTDIR
# SHARE holds tokencache.1 and the completions (tokencache.bash, .zsh, .fish). Depends are computed
# by dpkg-shlibdeps from the binaries; libsecret and hiredis are loaded at run time (dlopen), so
# they are Recommends/Suggests. With lintian installed, an error it reports fails the build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$1 arch=$2 multiarch=$3 library=$4 cli=$5 share=$6 work=$7 out=$8
libdir=usr/lib/$multiarch
epoch=$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)
# The maintainer: DEBFULLNAME and DEBEMAIL as Debian's tools take them, else the last commit's author.
if [ -n "${DEBFULLNAME:-}" ] && [ -n "${DEBEMAIL:-}" ]; then
    maintainer="$DEBFULLNAME <$DEBEMAIL>"
else
    maintainer=$(git -C "$here" log -1 --format='%an <%ae>' 2>/dev/null || true)
fi
[ -n "$maintainer" ] || { echo "build-debs: no maintainer: set DEBFULLNAME and DEBEMAIL" >&2; exit 1; }
first=$(git -C "$here" log --format=%ad --date=format:%Y 2>/dev/null | tail -n 1)
last=$(date -u -d "@$epoch" +%Y)
years=${first:-$last}
[ "$years" = "$last" ] || years="$years-$last"
rm -rf "$work"
mkdir -p "$work"

# A package's tree: DEBIAN/, and the copyright file and changelog Debian policy asks for.
start_package() {
    local package=$1
    install -d -m 0755 "$work/$package/DEBIAN" "$work/$package/usr/share/doc/$package"
    # The years of the first and the last commit make the copyright notice.
    sed "s|^Copyright: the tokencache contributors|Copyright: $years the tokencache contributors|" "$here/copyright" \
        > "$work/$package/usr/share/doc/$package/copyright"
    chmod 0644 "$work/$package/usr/share/doc/$package/copyright"
    {
        echo "$package ($version) unstable; urgency=medium"
        echo
        echo "  * tokencache $version."
        echo
        echo " -- $maintainer  $(date -u -R -d "@$epoch")"
    } | gzip -9n > "$work/$package/usr/share/doc/$package/changelog.gz"
    chmod 0644 "$work/$package/usr/share/doc/$package/changelog.gz"
}

# The Depends of binaries, as dpkg-shlibdeps finds them from the system's shlibs/symbols files.
depends_of() {
    local dir=$work/shlibdeps
    mkdir -p "$dir/debian"
    printf 'Source: tokencache\n\nPackage: tokencache\nArchitecture: any\n' > "$dir/debian/control"
    (cd "$dir" && dpkg-shlibdeps -O "$@" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
}

# Writes DEBIAN/control (with Installed-Size) and builds the package into OUTDIR.
finish_package() {
    local package=$1 control=$2 size
    size=$(du -k -s --exclude=DEBIAN "$work/$package" | cut -f1)
    printf '%s\nInstalled-Size: %s\n' "$control" "$size" > "$work/$package/DEBIAN/control"
    chmod 0644 "$work/$package/DEBIAN/control"
    find "$work/$package" -exec touch -h -d "@$epoch" {} +
    dpkg-deb --root-owner-group -Zxz -z1 --build "$work/$package" "$out/${package}_${version}_${arch}.deb" >/dev/null
}

# libtokencache1: the library.
start_package libtokencache1
install -d -m 0755 "$work/libtokencache1/$libdir"
install -m 0644 "$library" "$work/libtokencache1/$libdir/libtokencache.so.1"
echo "libtokencache 1 libtokencache1 (>= $version)" > "$work/libtokencache1/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$work/libtokencache1/DEBIAN/triggers"
chmod 0644 "$work/libtokencache1/DEBIAN/shlibs" "$work/libtokencache1/DEBIAN/triggers"
finish_package libtokencache1 "Package: libtokencache1
Source: tokencache
Version: $version
Architecture: $arch
Multi-Arch: same
Maintainer: $maintainer
Depends: $(depends_of "$work/libtokencache1/$libdir/libtokencache.so.1")
Recommends: libsecret-1-0
Suggests: libhiredis0.14
Section: libs
Priority: optional
Description: unified MSAL/ADAL token cache (shared library)
 tokencache keeps the tokens of Microsoft identity libraries (MSAL, ADAL)
 in one store shared by every app and process of a user or a server:
 SQLite, the Secret Service keyring or Redis.
 .
 This package holds libtokencache, its C ABI. libsecret (the Secret
 Service) and hiredis (Redis) are loaded when a store of theirs is opened."

# libtokencache-dev: the header, the link and the pkg-config file.
start_package libtokencache-dev
install -d -m 0755 "$work/libtokencache-dev/usr/include" "$work/libtokencache-dev/$libdir/pkgconfig"
install -m 0644 "$here/../../include/tokencache.h" "$work/libtokencache-dev/usr/include/tokencache.h"
ln -s libtokencache.so.1 "$work/libtokencache-dev/$libdir/libtokencache.so"
# In /usr the system loader finds the library: no rpath.
sed -e "s|@PREFIX@|/usr|" -e "s|@VERSION@|$version|" -e "s|^libdir=.*|libdir=\${prefix}/lib/$multiarch|" \
    -e "s| -Wl,-rpath,\${libdir}||" "$here/../../pkgconfig/tokencache.pc.in" \
    > "$work/libtokencache-dev/$libdir/pkgconfig/tokencache.pc"
chmod 0644 "$work/libtokencache-dev/$libdir/pkgconfig/tokencache.pc"
finish_package libtokencache-dev "Package: libtokencache-dev
Source: tokencache
Version: $version
Architecture: $arch
Multi-Arch: same
Maintainer: $maintainer
Depends: libtokencache1 (= $version)
Section: libdevel
Priority: optional
Description: unified MSAL/ADAL token cache (development files)
 tokencache keeps the tokens of Microsoft identity libraries (MSAL, ADAL)
 in one store shared by every app and process of a user or a server:
 SQLite, the Secret Service keyring or Redis.
 .
 This package holds the C header tokencache.h and the pkg-config file
 tokencache.pc."

# tokencache: the CLI, its man page and completions.
start_package tokencache
install -d -m 0755 "$work/tokencache/usr/bin" "$work/tokencache/usr/share/man/man1" \
    "$work/tokencache/usr/share/bash-completion/completions" "$work/tokencache/usr/share/zsh/vendor-completions" \
    "$work/tokencache/usr/share/fish/vendor_completions.d"
install -m 0755 "$cli" "$work/tokencache/usr/bin/tokencache"
gzip -9n < "$share/tokencache.1" > "$work/tokencache/usr/share/man/man1/tokencache.1.gz"
# bash-completion sources the file: no #! line.
sed '1{/^#!/d}' "$share/tokencache.bash" > "$work/tokencache/usr/share/bash-completion/completions/tokencache"
chmod 0644 "$work/tokencache/usr/share/bash-completion/completions/tokencache"
install -m 0644 "$share/tokencache.zsh" "$work/tokencache/usr/share/zsh/vendor-completions/_tokencache"
install -m 0644 "$share/tokencache.fish" "$work/tokencache/usr/share/fish/vendor_completions.d/tokencache.fish"
chmod 0644 "$work/tokencache/usr/share/man/man1/tokencache.1.gz"
finish_package tokencache "Package: tokencache
Version: $version
Architecture: $arch
Maintainer: $maintainer
Depends: $(depends_of "$work/tokencache/usr/bin/tokencache")
Recommends: libsecret-1-0
Suggests: libhiredis0.14, gnome-keyring
Section: utils
Priority: optional
Description: unified MSAL/ADAL token cache (command-line tool)
 tokencache keeps the tokens of Microsoft identity libraries (MSAL, ADAL)
 in one store shared by every app and process of a user or a server:
 SQLite, the Secret Service keyring or Redis.
 .
 This package holds the tokencache command: list accounts, look up and
 remove tokens, dump a store (secrets redacted), import the caches of
 other SDKs, diagnose a store."

if command -v lintian >/dev/null; then
    # Errors fail the build; warnings are printed. (As root, lintian warns about that: CI runs as root.)
    if ! lintian --fail-on error \
        "$out/libtokencache1_${version}_${arch}.deb" "$out/libtokencache-dev_${version}_${arch}.deb" \
        "$out/tokencache_${version}_${arch}.deb" > "$work/lintian.log" 2>&1; then
        cat "$work/lintian.log" >&2
        echo "package: lintian reports errors in the Debian packages (above)" >&2
        exit 1
    fi
    sed 's/^/lintian: /' "$work/lintian.log" >&2
elif [ "${CI:-}" = "true" ]; then
    echo "package: lintian is not installed; CI must check the Debian packages (scripts/setup.sh --tests)" >&2
    exit 1
else
    echo "package: lintian is not installed; the Debian packages are not checked" >&2
fi
