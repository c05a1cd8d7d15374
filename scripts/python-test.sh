#!/usr/bin/env bash
# The Python binding's tests (bindings/python/tests, pytest) against the real MSAL Python and
# msal-extensions pinned in Tests/Interop/requirements.txt:
#   1. installs libtokencache, its header and .pc file into a temporary prefix (scripts/install.sh)
#      and builds the CLI the import tests use (debug, unless scripts/test.sh built it already);
#   2. pip-installs bindings/python into the interop venv (.venv-interop), no compiler involved;
#   3. runs pytest with TOKENCACHE_LIBRARY pointing at the installed library, under Redis servers of
#      its own (scripts/redis-servers.sh run: the partition-loading tests on Redis and a Redis
#      Cluster) when redis-server is installed, else with those tests skipped;
#   4. with --bench-short, runs the Python benchmark briefly (Benchmarks/python/bench.py --short).
# The msal-extensions comparison of the load test is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

bench=""
for argument in "$@"; do
    case "$argument" in
        --bench-short) bench="--short" ;;
        --bench) bench="full" ;;
        *) echo "usage: scripts/python-test.sh [--bench-short|--bench]" >&2; exit 2 ;;
    esac
done

bash scripts/interop-venv.sh
python="$PWD/.venv-interop/bin/python"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/tokencache-python.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
prefix="$scratch/prefix"
bash scripts/install.sh "$prefix"
export TOKENCACHE_LIBRARY="$prefix/lib/libtokencache.so"

# The CLI, for the tests that import other libraries' caches: the debug build scripts/test.sh
# makes (a release build with other flags than install.sh's would rebuild every module twice).
if [ ! -x .build/debug/tokencache ]; then
    swift build --product tokencache
fi
export TOKENCACHE_CLI="$PWD/.build/debug/tokencache"

"$python" -m pip install --quiet --disable-pip-version-check --no-input --no-deps --no-build-isolation \
    --force-reinstall "$PWD/bindings/python"
rm -rf bindings/python/build bindings/python/src/*.egg-info

export TOKENCACHE_PYTEST_REPORT="$scratch/load-report.json"
redis=()
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
    redis=(bash "$PWD/scripts/redis-servers.sh" run)
else
    echo "python: no redis-server: the Redis tests are skipped" >&2
fi
(cd bindings/python && "${redis[@]}" "$python" -m pytest -p no:cacheprovider -ra tests)
if [ -f "$TOKENCACHE_PYTEST_REPORT" ]; then
    echo "python: 8 processes x 100 token responses through the plugin, x ${TOKENCACHE_EXTENSIONS_RESPONSES:-100} through msal-extensions:"
    cat "$TOKENCACHE_PYTEST_REPORT"
    echo
fi

if [ "$bench" = "--short" ]; then
    "$python" Benchmarks/python/bench.py --short
elif [ "$bench" = "full" ]; then
    "$python" Benchmarks/python/bench.py --json "$PWD/.build/python-bench.json"
fi
