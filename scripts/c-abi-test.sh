#!/usr/bin/env bash
# The C ABI test: installs the library under a temporary prefix (scripts/install.sh), builds
# Tests/CABI/tokencache_test.c against the installed copy with pkg-config only, and runs it with a
# clean environment (no Swift toolchain on the library path) under valgrind: memory errors and
# definite leaks fail the run. Needs valgrind and pkg-config (apt-get install valgrind pkg-config).
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d /tmp/tokencache-c-abi.XXXXXX)
trap 'rm -rf "$work"' EXIT
bash scripts/install.sh "$work/prefix"

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -std=c99 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -O1 -g -o "$work/tokencache_test" Tests/CABI/tokencache_test.c \
    $(pkg-config --cflags --libs tokencache) -lpthread
cc -std=c99 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -O2 -o "$work/tokencache_bench" Tests/CABI/tokencache_bench.c \
    $(pkg-config --cflags --libs tokencache)

# What the program loads: nothing from a Swift toolchain.
if env -i PATH=/usr/bin:/bin ldd "$work/tokencache_test" | grep -Ei 'swift|not found'; then
    echo "c-abi-test: the installed library needs a Swift toolchain library (above)" >&2
    exit 1
fi

env -i PATH=/usr/bin:/bin HOME="$work" TOKENCACHE_KEY=file \
    valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite --suppressions=Tests/CABI/valgrind.supp "$work/tokencache_test"

# Random bad input through every function (ctypes): the process must survive every call.
(cd "$work" && env -i PATH=/usr/bin:/bin HOME="$work" TOKENCACHE_KEY=file \
    python3 "$OLDPWD/Tests/CABI/abi_fuzz.py" "$work/prefix/lib/libtokencache.so.1" "${TOKENCACHE_FUZZ_SEED:-$RANDOM}" 5000)

# The cost of the hot calls, for the record (not a pass/fail threshold).
env -i PATH=/usr/bin:/bin HOME="$work" TOKENCACHE_KEY=file "$work/tokencache_bench" "$work/bench.sqlite"
