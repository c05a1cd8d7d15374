#!/usr/bin/env bash
# Nothing under Sources/ imports Foundation (whose internationalization brings ICU, ~60 MB) except
# in the `#else` of `#if canImport(FoundationEssentials)`, for platforms without FoundationEssentials.
# scripts/check-binary-size.sh checks the built binaries; this names the file at once. CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
while IFS= read -r file; do
    awk -v file="$file" '
        /^[[:space:]]*#if canImport\(FoundationEssentials\)/ { guarded = 1 }
        /^[[:space:]]*#endif/ { guarded = 0 }
        /^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*import[[:space:]]+(struct |class |enum |func |var |let )?(Foundation|FoundationInternationalization|FoundationNetworking|FoundationXML)([[:space:]]|\.|$)/ {
            if (!guarded || $0 !~ /import[[:space:]]+Foundation([[:space:]]|$)/) {
                printf "error: %s:%d imports %s outside #if canImport(FoundationEssentials) ... #else\n", file, NR, $0
                bad = 1
            }
        }
        END { exit bad }
    ' "$file" || status=1
done < <(find Sources -name '*.swift')
exit $status
