#!/usr/bin/env bash
# Checks the shipped binaries: scripts/check-binary-size.sh LIBRARY CLI
#   LIBRARY  libtokencache.so.1 as scripts/install.sh installs it
#   CLI      the tokencache executable (the release build of scripts/release-build.sh)
# Fails when either, stripped, is larger than its limit (library 20 MB, CLI 24 MB), needs a
# library of the Swift toolchain (the Swift runtime and Foundation must be linked in statically),
# or contains Foundation's internationalization (ICU). Prints the sizes it measured.
set -euo pipefail

library=${1:?usage: scripts/check-binary-size.sh LIBRARY CLI}
cli=${2:?usage: scripts/check-binary-size.sh LIBRARY CLI}
library_limit=$((20 * 1024 * 1024))
cli_limit=$((24 * 1024 * 1024))

for tool in strip nm readelf ldd strings; do
    command -v "$tool" >/dev/null || { echo "check-binary-size: $tool is not installed (binutils, libc-bin)" >&2; exit 2; }
done
for file in "$library" "$cli"; do
    [ -f "$file" ] || { echo "check-binary-size: $file: no such file" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() {
    echo "check-binary-size: $1" >&2
    failed=1
}

# The Swift toolchain's folder, when one is installed: nothing may be loaded from under it.
toolchain=""
if swift=$(command -v swift 2>/dev/null); then
    toolchain=$(dirname "$(dirname "$(readlink -f "$swift")")")
fi

# Libraries only a Swift toolchain provides; the binaries must carry them inside.
swift_libraries='^(libswift[A-Za-z_]*|libFoundation[A-Za-z]*|lib_Foundation[A-Za-z]*|libCoreFoundation|libdispatch|libBlocksRuntime|libicu[a-z0-9]*|lib_TestingInterop)\.so'
# ICU's C API (versioned as ucol_open_74 and so on), its data, and the Foundation modules built on it.
icu_pattern='(^|[^A-Za-z])(u(col|brk|loc|num|cal|dat|trans|search|norm2|set|text|regex|str|case)_[A-Za-z]+(_[0-9]+)?|icudt[0-9]+[lb]?_dat|icu_[0-9]+)|FoundationInternationalization|_FoundationICU'

check() {
    local name=$1 file=$2 limit=$3
    local stripped="$work/$name"
    cp "$file" "$stripped"
    strip "$stripped"
    local size
    size=$(stat -c %s "$stripped")
    printf '%s: %s bytes stripped (%.1f MB; limit %d MB), %s bytes as given\n' \
        "$name" "$size" "$(awk -v s="$size" 'BEGIN { print s / 1048576 }')" "$((limit / 1048576))" "$(stat -c %s "$file")"
    [ "$size" -le "$limit" ] || fail "$name: $size bytes stripped is more than the $((limit / 1048576)) MB allowed"

    local needed
    needed=$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    echo "$name needs: $(echo "$needed" | tr '\n' ' ')"
    if grep -E "$swift_libraries" <<<"$needed" >/dev/null; then
        fail "$name needs a Swift toolchain library: $(grep -E "$swift_libraries" <<<"$needed" | tr '\n' ' ')"
    fi
    local resolved
    resolved=$(ldd "$file" 2>&1 || true)
    if grep -q "not found" <<<"$resolved"; then
        fail "$name: a library it needs is not found: $(grep "not found" <<<"$resolved" | tr -s ' \t' ' ')"
    fi
    if [ -n "$toolchain" ] && grep -F "$toolchain/" <<<"$resolved" >/dev/null; then
        fail "$name loads from the Swift toolchain ($toolchain): $(grep -F "$toolchain/" <<<"$resolved" | tr -s ' \t' ' ')"
    fi

    # Symbols where the file still has them, and the text of the stripped file (ICU's data and the
    # module names in Swift metadata survive stripping).
    local found
    found=$({ nm "$file" 2>/dev/null || true; nm -D "$file" 2>/dev/null || true; strings -a "$stripped"; } \
        | grep -E -o "$icu_pattern" | sort -u | head -5 || true)
    [ -z "$found" ] || fail "$name contains ICU or Foundation's internationalization: $(echo "$found" | tr '\n' ' ')"
}

check library "$library" "$library_limit"
check cli "$cli" "$cli_limit"
if [ "$failed" -ne 0 ]; then
    exit 1
fi
echo "check-binary-size: both binaries are small, self-contained and without ICU"
