#!/usr/bin/env python3
"""Runs every `tokencache` command the README and docs/ show, so a doc that drifts from the CLI fails.

    python3 scripts/doc-commands.py PATH/TO/tokencache

Each command line of a ```sh block (README.md, docs/*.md) that starts with `tokencache`,
`.build/release/tokencache` or `swift run tokencache` runs, in the order the docs give them, in a
sandbox: a temporary HOME and XDG_DATA_HOME, no D-Bus session, a key file, and the files the examples
name (msal_cache.json, old.json, item.bplist, ...) made from Tests/Fixtures. A command fails the check
when the CLI rejects its words (exit 2), crashes, or takes over 60 s; other outcomes (not found,
unavailable: no Redis server or keyring in the sandbox) are the command working as documented.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
COMMAND = re.compile(r"^(?:\$ )?(?:\.build/release/|swift run )?(tokencache\b.*)$")
# The files the examples name, and the fixture each is made from.
FILES = {
    "msal_cache.json": "msal-node/cache.json",
    "cache.json": "msal-go/test_serialized_cache.json",
    "old.json": "msal-dotnet/cachecompat_dotnet_dictionary.bin",
    "item.bplist": "adal-objc/adal1x-keychain-item.bplist",
    ".cache/my-app/token_cache.bin": "msal-dotnet/ExpectedTokenCache.json",
    ".azure/msal_token_cache.json": "msal-node/cache.json",
}


def documented_commands():
    for path in ["README.md"] + sorted(glob.glob(os.path.join("docs", "*.md"))):
        block = False
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.startswith("```"):
                    block = not block and line.strip() in ("```sh", "```bash", "```shell", "```console")
                    continue
                match = COMMAND.match(line.strip()) if block else None
                if match:
                    yield f"{path}:{number}", match.group(1)


def main():
    if len(sys.argv) != 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit("usage: scripts/doc-commands.py PATH/TO/tokencache")
    binary = os.path.abspath(sys.argv[1])
    commands = list(documented_commands())
    if not commands:
        sys.exit("error: no tokencache command found in README.md or docs/")
    sandbox = tempfile.mkdtemp(prefix="tokencache-doc-commands.")
    try:
        home = os.path.join(sandbox, "home")
        os.makedirs(os.path.join(sandbox, "bin"))
        os.symlink(binary, os.path.join(sandbox, "bin", "tokencache"))
        for name, fixture in FILES.items():
            target = os.path.join(home, name)
            os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
            shutil.copyfile(os.path.join(FIXTURES, fixture), target)
            os.chmod(target, 0o600)
        environment = {
            "PATH": os.path.join(sandbox, "bin") + ":/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8",
            "XDG_DATA_HOME": os.path.join(home, ".local", "share"), "XDG_RUNTIME_DIR": os.path.join(sandbox, "run"),
            "TOKENCACHE_KEY": "file", "TOKENCACHE_REDIS_KEY": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        }
        # The store the commands read: the example cache, imported the way the README says.
        seed = subprocess.run([binary, "import", os.path.join(home, "msal_cache.json")], cwd=home, env=environment,
                              capture_output=True, text=True)
        if seed.returncode != 0:
            sys.exit(f"error: the sandbox's store could not be made: {seed.stderr.strip()}")
        failures = 0
        for place, command in commands:
            try:
                result = subprocess.run(["bash", "-c", command], cwd=home, env=environment, stdin=subprocess.DEVNULL,
                                        capture_output=True, text=True, timeout=60)
                status, errors = result.returncode, result.stderr.strip().splitlines()
            except subprocess.TimeoutExpired:
                status, errors = "timeout", []
            bad = status == "timeout" or status == 2 or status >= 126 or status < 0
            failures += bad
            print(f"{'FAIL' if bad else 'ok  '} {status!s:>7}  {place}  {command}", flush=True)
            if bad and errors:
                print("          " + "\n          ".join(errors[-5:]))
        print(f"{len(commands) - failures} passed, {failures} failed")
        sys.exit(1 if failures else 0)
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)


if __name__ == "__main__":
    main()
