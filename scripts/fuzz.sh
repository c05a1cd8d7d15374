#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (with -sanitize=fuzzer,address, in .build-fuzz) and runs each
# for a given time, seeded from the real cache files in Tests/Fixtures.
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]     default: 30 s each, every target
#   FUZZ_JOBS=2 bash scripts/fuzz.sh 600           two targets at a time
#   bash scripts/fuzz.sh --build-only              build the targets, run nothing (CI builds them
#                                                  while other steps wait on I/O)
#
# The corpus of each target grows in .build-fuzz/corpus/TARGET and is kept between runs; crashes,
# hangs (an input taking over 10 s) and out-of-memory inputs (over 2 GiB) are written to
# .build-fuzz/artifacts/TARGET/ and make the script fail. Reproduce one with
#   .build-fuzz/debug/TARGET .build-fuzz/artifacts/TARGET/crash-…
# and turn it into a regression test (Tests/…/…RegressionTests.swift).
set -euo pipefail
cd "$(dirname "$0")/.."

build_only=false
if [ "${1:-}" = "--build-only" ]; then build_only=true; shift; fi
seconds=${1:-30}
shift || true
all=(FuzzMSALJSON FuzzMSALV2 FuzzADALNetV3 FuzzKeyedArchive FuzzUnifiedItem FuzzKeychainItems FuzzImportChain)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=("${all[@]}"); fi
jobs=${FUZZ_JOBS:-1}

scratch=${FUZZ_SCRATCH:-.build-fuzz}
# libFuzzer's main is linked whole and clashes with the one SwiftPM names; lld reports problems
# plainly where gold crashes, so the fuzz build links with lld (shipped with the Swift toolchain).
(cd Fuzz && swift build --scratch-path "../$scratch" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld 2>&1 |
    grep -v "Cannot export local symbol" || true)
bin="$scratch/debug"
for target in "${targets[@]}"; do
    [ -x "$bin/$target" ] || { echo "error: $target was not built" >&2; exit 1; }
done
if $build_only; then exit 0; fi

seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
python3 Fuzz/seeds.py Tests/Fixtures "$seeds"

dictionary() {
    case $1 in
        FuzzKeyedArchive) echo Fuzz/dictionaries/bplist.dict ;;
        *) echo Fuzz/dictionaries/json.dict ;;
    esac
}

run() {
    local target=$1
    local corpus="$scratch/corpus/$target" artifacts="$scratch/artifacts/$target/"
    mkdir -p "$corpus" "$artifacts" "$seeds/$target"
    local log="$scratch/logs/$target.log"
    mkdir -p "$scratch/logs"
    # -detect_leaks=0: the Swift runtime's caches look like leaks to LeakSanitizer; memory that
    # really grows is caught by -rss_limit_mb.
    local status=0
    "$bin/$target" "$corpus" "$seeds/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -detect_leaks=0 -print_final_stats=1 -dict="$(dictionary "$target")" \
        -artifact_prefix="$artifacts" >"$log" 2>&1 || status=$?
    local runs
    runs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1 || true)
    if [ $status -ne 0 ]; then
        echo "$target: FAILED (exit $status) after ${runs:-?}; see $log and $artifacts" >&2
        grep -E 'ERROR|Fatal error|deadly signal|timeout|out-of-memory|Test unit written' "$log" | head -5 >&2 || true
        return 1
    fi
    local cov
    cov=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' || true)
    echo "$target: ok — $runs(s), $cov"
}

failed=0
if [ "$jobs" -le 1 ]; then
    for target in "${targets[@]}"; do run "$target" || failed=1; done
else
    pids=()
    for target in "${targets[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || failed=1; done
        run "$target" &
    done
    while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
fi
if [ $failed -ne 0 ]; then
    echo "fuzzing found problems" >&2
    exit 1
fi
