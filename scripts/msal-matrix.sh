#!/usr/bin/env bash
# The MSAL Python behaviour tests of the Python binding against every MSAL Python release
# tokencache.msal supports: the newest patch of each minor release from 1.31 to 1.39.
#
#   bash scripts/msal-matrix.sh [VERSION...]
#
# 1. libtokencache: TOKENCACHE_LIBRARY when it names a file, else installed into a temporary prefix
#    (scripts/install.sh, a release build);
# 2. one venv per version, .venv-msal-VERSION, holding that MSAL from PyPI (pip install --no-deps)
#    over .venv-msal-base, which holds what every release needs, pinned in
#    Tests/Interop/msal-matrix-requirements.txt (each release's own requirements are checked against
#    it); all gitignored and kept between runs, made again only when what they hold changes;
# 3. bindings/python/tests/test_msal_behaviour.py, test_msal_plugin.py and test_partition_loading.py
#    (its Redis cases under scripts/redis-servers.sh when redis-server is installed) against each version,
#    the binding imported from the checkout (the load tests, and the imports of other SDKs' caches,
#    stay with the full suite on the pinned MSAL: scripts/python-test.sh);
# 4. a table of every test against every version (passed, failed, skipped), and the exit status 1
#    when any failed.
# Needs python3 with venv and PyPI (or a pip cache holding those releases) for step 2.
set -euo pipefail
cd "$(dirname "$0")/.."

# Under Redis servers of its own (one node and a cluster) when redis-server is installed.
if [ -z "${TOKENCACHE_TEST_REDIS_TCP:-}" ] && command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
    exec bash scripts/redis-servers.sh run bash scripts/msal-matrix.sh "$@"
fi

versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
    versions=(1.31.1 1.32.3 1.33.0 1.34.0 1.35.1 1.36.0 1.37.0 1.38.0 1.39.0)
fi
requirements=Tests/Interop/msal-matrix-requirements.txt
python=${PYTHON:-python3}

started=$SECONDS
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tokencache-msal-matrix.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

if [ -z "${TOKENCACHE_LIBRARY:-}" ] || [ ! -f "$TOKENCACHE_LIBRARY" ]; then
    bash scripts/install.sh "$scratch/prefix" >&2
    export TOKENCACHE_LIBRARY="$scratch/prefix/lib/libtokencache.so"
fi

base=.venv-msal-base
if ! [ -x "$base/bin/python" ] || ! cmp -s "$requirements" "$base/.installed"; then
    rm -rf "$base"
    "$python" -m venv "$base"
    "$base/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
    cp "$requirements" "$base/.installed"
fi
base_site=$("$base/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

make_venv() {  # make_venv VERSION: .venv-msal-VERSION, that msal over the base venv's packages
    local version=$1 venv=".venv-msal-$1" site
    if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.installed" 2>/dev/null)" = "msal==$version over $base_site" ]; then
        return 0
    fi
    rm -rf "$venv"
    "$base/bin/python" -m venv --without-pip "$venv"
    site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$base_site" >"$site/msal-matrix-base.pth"
    if ! "$base/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --no-deps \
        --target "$site" "msal==$version" >"$scratch/pip-$version.log" 2>&1; then
        echo "msal-matrix: installing msal==$version failed:" >&2
        cat "$scratch/pip-$version.log" >&2
        rm -rf "$venv"
        return 1
    fi
    # Its own requirements (requests, PyJWT, cryptography ranges) must hold for what the base has.
    "$venv/bin/python" - "$version" <<'PY' || { rm -rf "$venv"; return 1; }
import sys
from importlib.metadata import distribution, version
from packaging.requirements import Requirement
for text in distribution("msal").requires or []:
    requirement = Requirement(text)
    if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
        continue
    if not requirement.specifier.contains(version(requirement.name), prereleases=True):
        sys.exit("msal-matrix: msal %s requires %s; the base has %s" % (sys.argv[1], text, version(requirement.name)))
PY
    echo "msal==$version over $base_site" >"$venv/.installed"
}
export -f make_venv
export base base_site scratch

printf '%s\n' "${versions[@]}" | xargs -P 3 -I{} bash -c 'make_venv {}'
echo "msal-matrix: venvs ready in $((SECONDS - started)) s" >&2

status=0
run_version() {  # run_version VERSION: pytest against it, a JUnit report in $scratch
    local version=$1
    (cd bindings/python && PYTHONPATH="$PWD/src" "../../.venv-msal-$version/bin/python" -m pytest -q \
        -p no:cacheprovider -W "ignore::DeprecationWarning" --junitxml="$scratch/junit-$version.xml" \
        tests/test_msal_behaviour.py tests/test_msal_plugin.py tests/test_partition_loading.py >"$scratch/pytest-$version.log" 2>&1)
}
# Two at a time: the tests are mostly waiting on SQLite commits and on Python itself.
pids=()
for version in "${versions[@]}"; do
    run_version "$version" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then
        wait "${pids[0]}" || status=1
        pids=("${pids[@]:1}")
    fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done

for version in "${versions[@]}"; do
    if ! grep -q ' passed\| failed\| error' "$scratch/pytest-$version.log"; then
        echo "msal-matrix: pytest did not run for MSAL Python $version:" >&2
        cat "$scratch/pytest-$version.log" >&2
        status=1
    elif grep -q ' failed\| error' "$scratch/pytest-$version.log"; then
        echo "msal-matrix: MSAL Python $version:" >&2
        tail -n 60 "$scratch/pytest-$version.log" >&2
    fi
done

"$python" - "$scratch" "${versions[@]}" <<'PY'
import os, sys
import xml.etree.ElementTree as ElementTree

scratch, versions = sys.argv[1], sys.argv[2:]
results, names = {}, []
for version in versions:
    path = os.path.join(scratch, "junit-%s.xml" % version)
    if not os.path.exists(path):
        continue
    for case in ElementTree.parse(path).iter("testcase"):
        name = case.get("name")
        if name not in names:
            names.append(name)
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "FAILED"
        elif case.find("skipped") is not None:
            outcome = "skipped"
        else:
            outcome = "ok"
        results[(name, version)] = outcome
short = [v.rsplit(".", 1)[0] if v.count(".") == 2 else v for v in versions]
print("| test | " + " | ".join(short) + " |")
print("|---|" + "---|" * len(versions))
for name in names:
    label = name.replace("test_the_plugin_behaves_as_msal_own_cache", "behaves as MSAL's cache").replace("|", "/")
    print("| %s | %s |" % (label, " | ".join(results.get((name, v), "-") for v in versions)))
PY
echo "msal-matrix: $((SECONDS - started)) s in all (MSAL Python ${versions[*]})" >&2
exit "$status"
