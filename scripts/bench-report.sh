#!/usr/bin/env bash
# Runs the benchmarks and writes their results into docs/benchmarks.md (the tables between the
# `<!-- results:begin -->` and `<!-- python-results:begin -->` markers), docs/scaling.md (the Redis
# table, `<!-- redis-results:begin -->`) and docs/scaling-chart.svg, through Benchmarks/report/report.py. The next run replaces the tables; nothing is appended.
#
#   bash scripts/bench-report.sh                 the Swift benchmarks (full mode) and the Python ones
#   bash scripts/bench-report.sh --short         the Swift benchmarks in short mode (CI's), Python as usual
#   bash scripts/bench-report.sh --swift-only    only the Swift table
#   bash scripts/bench-report.sh --python-only   only the Python table and the chart
#   bash scripts/bench-report.sh --from SWIFT.txt PYTHON.json   no run: earlier outputs (either may be -)
#
# The Swift run is `swift package benchmark --no-progress` in Benchmarks/ (set TOKENCACHE_BENCH_REDIS
# for the Redis rows, e.g. inside `scripts/redis-servers.sh run`). The Python run is
# Benchmarks/python/bench.py at BENCH_SIZES (default 1000,10000,100000) with the release library
# installed under a temporary prefix (scripts/install.sh) and the binding in .venv-interop; keep
# the caches MSAL Python writes with BENCH_SEEDS=DIR to reuse them (MSAL Python took 11 minutes to
# write 100,000 accounts on the loaded 2-core VM). The outputs are kept in .build/bench-report/ (swift.txt,
# python.json); the Python run's JSON also in Benchmarks/report/python-run.json, committed with the
# page and the chart it made.
set -euo pipefail
cd "$(dirname "$0")/.."

swift=yes python=yes short="" from_swift="" from_python=""
while [ $# -gt 0 ]; do
    case "$1" in
        --short) short=1 ;;
        --swift-only) python="" ;;
        --python-only) swift="" ;;
        --from) from_swift=${2:?--from SWIFT.txt PYTHON.json}; from_python=${3:?--from SWIFT.txt PYTHON.json}; shift 2 ;;
        *) sed -n '2,20p' "$0" >&2; exit 2 ;;
    esac
    shift
done

out=.build/bench-report
mkdir -p "$out"
args=()

if [ -n "$from_swift$from_python" ]; then
    [ "$from_swift" = "-" ] || args+=(--swift "$from_swift")
    [ "$from_python" = "-" ] || args+=(--python "$from_python" --chart docs/scaling-chart.svg)
else
    if [ -n "$swift" ]; then
        echo "bench-report: the Swift benchmarks${short:+ (short mode)}" >&2
        (cd Benchmarks && TOKENCACHE_BENCH_SHORT=${short:-} swift package benchmark --no-progress) | tee "$out/swift.txt"
        args+=(--swift "$out/swift.txt")
    fi
    if [ -n "$python" ]; then
        echo "bench-report: MSAL Python over the four caches" >&2
        bash scripts/interop-venv.sh
        scratch=$(mktemp -d "${TMPDIR:-/tmp}/tokencache-report.XXXXXX")
        trap 'rm -rf "$scratch"' EXIT
        bash scripts/install.sh "$scratch/prefix"
        export TOKENCACHE_LIBRARY="$scratch/prefix/lib/libtokencache.so"
        .venv-interop/bin/python -m pip install --quiet --disable-pip-version-check --no-input --no-deps \
            --no-build-isolation --force-reinstall "$PWD/bindings/python"
        rm -rf bindings/python/build bindings/python/src/*.egg-info
        .venv-interop/bin/python Benchmarks/python/bench.py --sizes "${BENCH_SIZES:-1000,10000,100000}" \
            ${BENCH_SEEDS:+--seeds "$BENCH_SEEDS"} --json "$out/python.json"
        # Kept with the repository: the chart and the table can be redrawn from it.
        cp "$out/python.json" Benchmarks/report/python-run.json
        args+=(--python Benchmarks/report/python-run.json --chart docs/scaling-chart.svg)
    fi
fi

case " ${args[*]:-} " in *" --swift "*) args+=(--scaling docs/scaling.md) ;; esac
python3 Benchmarks/report/report.py update --doc docs/benchmarks.md "${args[@]}"
echo "bench-report: review and commit docs/benchmarks.md, docs/scaling.md, docs/scaling-chart.svg and" \
    "Benchmarks/report/python-run.json together; if the machine changed, say so in 'The machine'" >&2
