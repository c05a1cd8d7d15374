#!/usr/bin/env bash
# The CLI renders; the library decides. `tokencache` reaches the backends only through
# CacheStoreLocation (and the Secret Service keyring adapter of import sdk, InterchangeSecretService),
# so it may import (and its target depend on) only these modules. CI runs this.
set -euo pipefail
cd "$(dirname "$0")/.."

allowed="ArgumentParser CacheStore CacheStoreLocation InterchangeSecretService Foundation FoundationEssentials Glibc TokenCache TokenCacheDisplay TokenCacheInterchange TokenCacheJSON TokenCacheSchema TokenCacheVersion"
status=0

# The imports of its sources.
while IFS=: read -r file line text; do
    module=$(echo "$text" | sed -E 's/^[[:space:]]*(@[A-Za-z_]+([(][^)]*[)])?[[:space:]]+)*import[[:space:]]+(struct |class |enum |func |var |let )?([A-Za-z_][A-Za-z0-9_]*).*/\4/')
    if ! [[ " $allowed " == *" $module "* ]]; then
        echo "error: $file:$line imports $module; the CLI may import only: $allowed" >&2
        status=1
    fi
done < <(grep -rnE '^[[:space:]]*(@[A-Za-z_]+([(][^)]*[)])?[[:space:]]+)*import[[:space:]]' Sources/tokencache)

# The dependencies its target declares.
for dependency in $(swift package dump-package 2>/dev/null | python3 -c '
import json, sys
for target in json.load(sys.stdin)["targets"]:
    if target["name"] == "tokencache":
        for dependency in target["dependencies"]:
            print(next(iter(dependency.values()))[0])
'); do
    if ! [[ " $allowed " == *" $dependency "* ]]; then
        echo "error: the tokencache target depends on $dependency; it may depend only on: $allowed" >&2
        status=1
    fi
done
exit $status
