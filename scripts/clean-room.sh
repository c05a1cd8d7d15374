#!/usr/bin/env bash
# Installs the artifacts of scripts/package.sh OUTDIR as users do, with the Swift toolchain out of
# reach, and uses each (runs as root: it installs the Debian packages, then removes them):
#   - the toolchain's folder is hidden under an empty tmpfs in a private mount namespace (unshare),
#     its directories are off PATH, and every process the test starts records its /proc/PID/maps
#     at exit (an LD_PRELOADed recorder): a mapped file under the toolchain's folder fails the run;
#   - the wheel, in a fresh venv with MSAL Python from PyPI: two processes of an MSAL Python app
#     (examples/python-cli) against the offline identity provider, the first signs in, the second
#     is served from the cache with no request; the wheel's `tokencache accounts --json` lists it;
#   - the Debian packages (apt-get install ./OUTDIR/*.deb): the C program of docs/c-api.md
#     (examples/c/accounts.c) built with pkg-config against /usr and run, /usr/bin/tokencache
#     accounts; then apt-get remove;
#   - the tarball, installed with its install.sh under a temporary prefix, the same way;
#   - one version everywhere: the sources, every artifact's name and metadata, `tokencache
#     --version` of each CLI, `tokencache_version()` of each library, `tokencache.__version__`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

artifacts=${1:?usage: scripts/clean-room.sh OUTDIR (the artifacts of scripts/package.sh)}
artifacts=$(cd "$artifacts" && pwd)
fail() { echo "clean-room: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root (it installs and removes the Debian packages)"

# --- outside: find the toolchain, build the maps recorder, enter a mount namespace without it -----
if [ -z "${TOKENCACHE_CLEAN_ROOM_WORK:-}" ]; then
    swift=$(command -v swift || true)
    [ -n "$swift" ] || fail "no swift on PATH: cannot tell which folder to hide"
    # .../usr/bin/swift -> the toolchain's folder, the parent of usr/
    toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$swift")")")")
    [ "$toolchain" != / ] || fail "swift is $swift: its folder is not a toolchain's own"
    work=$(mktemp -d "${TMPDIR:-/tmp}/tokencache-clean-room.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    /usr/bin/cc -shared -fPIC -O2 -o "$work/maps_dump.so" packaging/clean-room/maps_dump.c
    export TOKENCACHE_CLEAN_ROOM_TOOLCHAIN=$toolchain TOKENCACHE_CLEAN_ROOM_WORK=$work
    if unshare --mount --propagation private true 2>/dev/null; then
        unshare --mount --propagation private bash -c 'mount -t tmpfs -o ro,mode=0755 tokencache-clean-room "$1" && exec bash "$2" "$3"' \
            clean-room "$toolchain" "$root/scripts/clean-room.sh" "$artifacts"
    else
        echo "clean-room: no mount namespace here: the toolchain's folder stays on disk; PATH and the maps check still apply" >&2
        bash "$root/scripts/clean-room.sh" "$artifacts"
    fi
    exit
fi

# --- inside --------------------------------------------------------------------------------------
toolchain=$TOKENCACHE_CLEAN_ROOM_TOOLCHAIN
work=$TOKENCACHE_CLEAN_ROOM_WORK
path=""
IFS=: read -r -a entries <<< "$PATH"
for entry in "${entries[@]}"; do
    case "$(readlink -f "$entry" 2>/dev/null || echo "$entry")" in
        "$toolchain"|"$toolchain"/*) ;;
        *) path=${path:+$path:}$entry ;;
    esac
done
export PATH=$path
unset LD_LIBRARY_PATH TOKENCACHE_LIBRARY TOKENCACHE_STORE TOKENCACHE_CLI XDG_DATA_HOME PKG_CONFIG_PATH
if command -v swift >/dev/null || command -v swiftc >/dev/null; then fail "swift is still on PATH ($(command -v swift swiftc))"; fi
if ldconfig -p | grep -F "$toolchain/"; then fail "the loader's cache names the toolchain's folder (above)"; fi
echo "clean room: $toolchain $( [ -z "$(ls -A "$toolchain")" ] && echo "hidden (empty)" || echo "still present" ), not on PATH"

version=$(sed -n 's/^public let tokencacheVersion: StaticString = "\(.*\)"$/\1/p' Sources/TokenCacheVersion/Version.swift)
[ -n "$version" ] || fail "cannot read the version from Sources/TokenCacheVersion/Version.swift"
wheel=$(ls "$artifacts"/tokencache-"$version"-py3-none-manylinux_*_x86_64.whl 2>/dev/null | head -1)
tarball=$artifacts/tokencache-$version-linux-x86_64.tar.gz
debs=("$artifacts/libtokencache1_${version}_amd64.deb" "$artifacts/libtokencache-dev_${version}_amd64.deb"
    "$artifacts/tokencache_${version}_amd64.deb")
for artifact in "$wheel" "$tarball" "${debs[@]}"; do
    [ -f "$artifact" ] || fail "no artifact of version $version: ${artifact:-the wheel} (run scripts/package.sh $artifacts)"
done

maps=$work/maps
mkdir -p "$maps"
# A command whose process (and every process it starts) records what it had mapped.
traced() { LD_PRELOAD=$work/maps_dump.so TOKENCACHE_MAPS_DIR=$maps "$@"; }
same_version() {  # same_version WHAT VALUE
    [ "$2" = "$version" ] || fail "$1 is $2, the sources say $version"
}
export HOME=$work/home TOKENCACHE_KEY=file
mkdir -p "$HOME"
step_start=$(date +%s)
timings=()
step() { local now; now=$(date +%s); timings+=("$(printf '%-26s %4ss' "$1" $((now - step_start)))"); step_start=$now; }

# --- the wheel -----------------------------------------------------------------------------------
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-input "$wheel" msal==1.39.0
step "wheel: venv and install"
run_signin() { traced "$work/venv/bin/python" examples/testing/with_fake_sts.py examples/python-cli/signin.py; }
run_signin > "$work/first.out" 2> "$work/first.err" || fail "first MSAL process: $(cat "$work/first.err")"
run_signin > "$work/second.out" 2> "$work/second.err" || fail "second MSAL process: $(cat "$work/second.err")"
cat "$work/first.out" "$work/second.out"
grep -q "token from the identity provider" "$work/first.out" || fail "the first process did not sign in"
grep -q '"token_requests": 0' "$work/second.err" && grep -q "token from the cache" "$work/second.out" \
    || fail "the second process was not a cache hit: $(cat "$work/second.out" "$work/second.err")"
traced "$work/venv/bin/tokencache" accounts --json > "$work/accounts.json"
grep -q '"user1@contoso.com"' "$work/accounts.json" || fail "the wheel's tokencache accounts --json: $(cat "$work/accounts.json")"
echo "wheel: $(basename "$wheel"): signed in once, silent in a second process, tokencache accounts --json lists it"
same_version "the wheel's tokencache --version" "$(traced "$work/venv/bin/tokencache" --version)"
same_version "tokencache.__version__" "$(traced "$work/venv/bin/python" -c 'import tokencache; print(tokencache.__version__)')"
same_version "the wheel's tokencache_version()" "$(traced "$work/venv/bin/python" -c 'import tokencache; print(tokencache.version())')"
step "wheel: MSAL app, CLI"

# --- the Debian packages -------------------------------------------------------------------------
remove_debs() { DEBIAN_FRONTEND=noninteractive apt-get remove -y -q libtokencache-dev libtokencache1 tokencache >/dev/null 2>&1 || true; }
trap remove_debs EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${debs[@]}" > "$work/apt.log" 2>&1 \
    || { cat "$work/apt.log" >&2; fail "apt-get install of the Debian packages failed"; }
step "debs: apt-get install"
[ "$(pkg-config --variable=prefix tokencache)" = /usr ] || fail "tokencache.pc's prefix is $(pkg-config --variable=prefix tokencache), not /usr"
same_version "pkg-config --modversion tokencache (deb)" "$(pkg-config --modversion tokencache)"
for package in libtokencache1 libtokencache-dev tokencache; do
    same_version "the $package package" "$(dpkg-query -W -f='${Version}' "$package")"
done
cc -std=c99 -Wall -Wextra -Werror -o "$work/accounts-deb" examples/c/accounts.c $(pkg-config --cflags --libs tokencache)
traced "$work/accounts-deb" > "$work/c-deb.out" || fail "the C example (deb) failed: $(cat "$work/c-deb.out")"
grep -q '"user1@contoso.com"' "$work/c-deb.out" || fail "the C example (deb) does not list the account: $(cat "$work/c-deb.out")"
[ "$(command -v tokencache)" = /usr/bin/tokencache ] || fail "tokencache on PATH is $(command -v tokencache), not /usr/bin/tokencache"
traced /usr/bin/tokencache accounts > "$work/cli-deb.out" || fail "/usr/bin/tokencache accounts failed"
grep -q "user1@contoso.com" "$work/cli-deb.out" || fail "/usr/bin/tokencache accounts: $(cat "$work/cli-deb.out")"
same_version "/usr/bin/tokencache --version" "$(traced /usr/bin/tokencache --version)"
same_version "tokencache_version() of /usr" "$(traced python3 -c 'import ctypes; l = ctypes.CDLL("libtokencache.so.1"); l.tokencache_version.restype = ctypes.c_char_p; print(l.tokencache_version().decode())')"
[ -f /usr/share/man/man1/tokencache.1.gz ] && [ -f /usr/share/bash-completion/completions/tokencache ] || fail "the man page or the bash completion is not installed"
echo "debs: the C example and /usr/bin/tokencache accounts list the account"
remove_debs
trap - EXIT
[ ! -e /usr/bin/tokencache ] || fail "apt-get remove left /usr/bin/tokencache"
step "debs: C example, CLI, remove"

# --- the tarball ---------------------------------------------------------------------------------
mkdir -p "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked"
prefix=$work/prefix
sh "$work/unpacked/tokencache-$version-linux-x86_64/install.sh" "$prefix" > /dev/null
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --variable=prefix tokencache)" = "$prefix" ] || fail "the tarball's tokencache.pc names $(pkg-config --variable=prefix tokencache), not $prefix"
same_version "pkg-config --modversion tokencache (tarball)" "$(pkg-config --modversion tokencache)"
cc -std=c99 -Wall -Wextra -Werror -o "$work/accounts-tar" examples/c/accounts.c $(pkg-config --cflags --libs tokencache)
traced "$work/accounts-tar" > "$work/c-tar.out" || fail "the C example (tarball) failed"
grep -q '"user1@contoso.com"' "$work/c-tar.out" || fail "the C example (tarball) does not list the account"
traced "$prefix/bin/tokencache" accounts > "$work/cli-tar.out"
grep -q "user1@contoso.com" "$work/cli-tar.out" || fail "the tarball's tokencache accounts: $(cat "$work/cli-tar.out")"
same_version "the tarball's tokencache --version" "$(traced "$prefix/bin/tokencache" --version)"
echo "tarball: the C example and $prefix/bin/tokencache accounts list the account"
step "tarball"

# --- what the processes had mapped ---------------------------------------------------------------
count=$(ls "$maps" | wc -l)
[ "$count" -ge 10 ] || fail "only $count processes recorded their maps"
if grep -l -F "$toolchain/" "$maps"/maps.* > "$work/bad-maps"; then
    for file in $(cat "$work/bad-maps"); do grep -F "$toolchain/" "$file" | head -3 >&2; done
    fail "a process had a file of the Swift toolchain mapped (above)"
fi
# What the programs loaded of tokencache and SQLite, for the record.
grep -h -o '/[^ ]*\.so[.0-9]*$' "$maps"/maps.* | sed "s|^$work/|WORK/|" | grep -E 'libtokencache|sqlite' | sort -u \
    | sed 's/^/  mapped: /'
echo "clean room: $count processes, none had a file under $toolchain mapped"
echo "clean room: version $version everywhere; time per step:"
printf '  %s\n' "${timings[@]}"
