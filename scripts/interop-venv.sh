#!/usr/bin/env bash
# Installs the pinned MSAL Python of the interop tests (Tests/Interop/requirements.txt) into
# .venv-interop, a Python venv the tests find at the repository root. Does nothing when the venv
# already has exactly these requirements.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv-interop
requirements=Tests/Interop/requirements.txt
stamp="$venv/.installed-requirements"

if [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$stamp"; then
    exit 0
fi
python=${PYTHON:-python3}
echo "interop: creating $venv with $("$python" --version 2>&1) and $(grep -m1 '^msal==' "$requirements")" >&2
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
"$venv/bin/python" -c 'import msal; print("interop: MSAL Python", msal.__version__)' >&2
cp "$requirements" "$stamp"
