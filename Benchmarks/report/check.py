#!/usr/bin/env python3
"""CI's benchmark check: a short run's allocations and times against a recorded baseline.

    check.py REPORT BASELINE            compare; exit 1 on a regression
    check.py REPORT BASELINE --record   write BASELINE from REPORT

REPORT is ordo-one benchmark's text (or markdown) report of a run. Allocations per operation are
the harness's malloc count, the same run after run for the same code: a benchmark fails when its
p50 count grows past 25% (and past 2) over the baseline's — an index lookup that starts decoding,
copying or reading allocates where it allocated nothing. Wall-clock time on a shared 2-core machine
swings 2-4x between runs, so it is held only to what no noise reaches: a p90 more than 10x the
baseline's (a lookup that starts touching SQLite is 100x slower). A benchmark of the baseline
missing from the run fails too; one the baseline lacks is listed, to be recorded.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

MALLOC_GROWTH = 1.25
MALLOC_SLACK = 2
TIME_FACTOR = 10


def compare(run, baseline):
    """(lines, failures) for `run` ({name: {"p90", "mallocs"}}) against `baseline`."""
    lines, failures = [], 0
    for name in sorted(baseline):
        base = baseline[name]
        now = run.get(name)
        if now is None:
            lines.append(f"FAIL {name}: not in the run")
            failures += 1
            continue
        problems = []
        if base.get("mallocs") is not None and now.get("mallocs") is not None:
            limit = max(base["mallocs"] * MALLOC_GROWTH, base["mallocs"] + MALLOC_SLACK)
            if now["mallocs"] > limit:
                problems.append(f"mallocs {now['mallocs']:g} > {limit:g}")
        if now["p90"] > base["p90"] * TIME_FACTOR:
            problems.append(f"p90 {report.duration(now['p90'])} > {TIME_FACTOR}x {report.duration(base['p90'])}")
        failures += bool(problems)
        mallocs = "-" if now.get("mallocs") is None else f"{now['mallocs']:g}"
        detail = "; ".join(problems) if problems else (
            f"mallocs {mallocs} (baseline {base.get('mallocs')}), p90 {report.duration(now['p90'])} "
            f"(baseline {report.duration(base['p90'])})")
        lines.append(f"{'FAIL' if problems else 'ok  '} {name}: {detail}")
    for name in sorted(set(run) - set(baseline)):
        lines.append(f"new  {name}: not in the baseline; record it (--record)")
    return lines, failures


def main(argv):
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--record"):
        sys.exit(__doc__)
    with open(argv[0], encoding="utf-8") as f:
        run = report.parse_swift(f.read())
    if len(argv) == 3:
        baseline = {name: {"p90": entry["p90"], "mallocs": entry.get("mallocs")} for name, entry in sorted(run.items())}
        with open(argv[1], "w", encoding="utf-8") as f:
            json.dump(baseline, f, indent=2, sort_keys=True)
            f.write("\n")
        print(f"recorded {len(baseline)} benchmarks in {argv[1]}")
        return 0
    with open(argv[1], encoding="utf-8") as f:
        baseline = json.load(f)
    lines, failures = compare(run, baseline)
    print("\n".join(lines))
    print(f"{len(baseline) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
