#!/usr/bin/env python3
"""Writes the results of one benchmark run into docs/benchmarks.md, and draws the scaling chart.

The tables of docs/benchmarks.md between marker comments are generated, so a new run replaces them
instead of adding to them:

    <!-- results:begin -->         ... <!-- results:end -->          the Swift benchmarks (goal, p50, p90)
    <!-- python-results:begin -->  ... <!-- python-results:end -->   Benchmarks/python/bench.py's table
    and in docs/scaling.md (--scaling):
    <!-- redis-results:begin -->   ... <!-- redis-results:end -->    the Redis benchmarks against a blob per user
    <!-- open-results:begin -->    ... <!-- open-results:end -->     opening stores of three sizes

Inputs:
    --swift FILE   the text output of `cd Benchmarks && swift package benchmark --no-progress`
                   (the default `text` format, or `--format markdown`). ordo-one 1.38.1's
                   `jsonSmallerIsBetter` carries only p99, and `histogramPercentiles` names each
                   benchmark only in a file name with its spaces replaced, so the table is read
                   from the text report, which has p50 and p90 under each benchmark's own name.
    --python FILE  the JSON of `Benchmarks/python/bench.py --json FILE`.

Usage:
    report.py update --swift OUT.txt --python BENCH.json --doc docs/benchmarks.md --chart docs/scaling-chart.svg \
        --scaling docs/scaling.md
    report.py chart --python BENCH.json --out docs/scaling-chart.svg
    report.py --self-check          runs the fixture tests (test_report.py) without pytest

scripts/bench-report.sh runs the benchmarks and then this. Only the standard library is used.
"""

import argparse
import json
import math
import os
import re
import sys
import textwrap

# Every Swift benchmark in the order of the table, with its goal (p50) in nanoseconds, or None.
# A benchmark the run has and this list does not is added at the end, without a goal.
GOALS = [
    ("account by identifier", 500),
    ("account by username", 500),
    ("all accounts", 100_000),
    ("all accounts, first after a save", None),
    ("access token, exact scopes", 1_000),
    ("access token, scope subset via alias", 2_000),
    ("family refresh token", 500),
    ("save token response", 300_000),
    ("silent lookup after another writer's save", None),
    ("open store and first lookup", 50_000_000),
    ("open store and first lookup, 10,000 accounts", 150_000_000),
    ("open store and first lookup, partition mode", 2_000_000),
    ("warm lookup, partition mode", 1_000),
    ("redis: cold partition lookup", 250_000),
    ("redis: cold partition lookup, through the engine", None),
    ("redis: warm lookup", 1_000),
    ("redis: save token response", 500_000),
    ("redis: invalidation seen by another engine", None),
    ("redis: blob per user lookup", None),
    ("redis: blob per user save", None),
    ("secret service item read", None),
]

UNITS = {"ns": 1, "μs": 1_000, "µs": 1_000, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}

KINDS = ("memory", "extensions", "tokencache", "tokencache-partitions")
LABELS = {
    "memory": "MSAL Python in-memory",
    "extensions": "msal-extensions file",
    "tokencache": "tokencache",
    "tokencache-partitions": "tokencache, partition mode",
}
COLORS = {"memory": "#7f7f7f", "extensions": "#d62728", "tokencache": "#1f77b4",
          "tokencache-partitions": "#2ca02c"}
DASHES = {"memory": "6,4", "extensions": "", "tokencache": "", "tokencache-partitions": "2,3"}


class ReportError(Exception):
    pass


# MARK: - Reading the runs

def _number(cell):
    cell = cell.strip().replace(",", "")
    if not cell:
        raise ValueError("empty cell")
    return float(cell)


def parse_swift(text):
    """{benchmark: {"p50": ns, "p90": ns, "mallocs": p50 or None}} from ordo-one's text or markdown report.

    Each benchmark's name is a line of its own ("### name" in markdown), followed by a table whose
    rows are a metric and its percentiles p0, p25, p50, p75, p90, p99, p100, then the sample count.
    """
    results, current = {}, None
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("### "):
            current = stripped[4:].strip()
            continue
        cells = [c for c in re.split(r"[│|]", stripped)]
        if len(cells) > 1:
            cells = [c.strip() for c in cells if c.strip() != ""]
            if not cells or current is None:
                continue
            label = cells[0]
            time = re.match(r"Time \(wall clock\) \((\w+|μs|µs)\)", label)
            if time and len(cells) >= 9:
                unit = UNITS.get(time.group(1))
                if unit is None:
                    raise ReportError("unknown time unit %r for %s" % (time.group(1), current))
                entry = results.setdefault(current, {"mallocs": None})
                entry["p50"] = _number(cells[3]) * unit
                entry["p90"] = _number(cells[5]) * unit
            elif label.startswith("Malloc (total)") and len(cells) >= 9:
                scale = 1
                unit = re.search(r"\((K|M|G)\)", label)
                if unit:
                    scale = {"K": 1_000, "M": 1_000_000, "G": 1_000_000_000}[unit.group(1)]
                results.setdefault(current, {"mallocs": None})["mallocs"] = _number(cells[3]) * scale
            continue
        if stripped[0] in "╒╞├╘═─=" or stripped.startswith(("warning", "Host ", "Build ", "Running ", "Writing ")):
            continue
        current = stripped
    results = {name: entry for name, entry in results.items() if "p50" in entry}
    if not results:
        raise ReportError("no benchmark results found in the Swift report")
    return results


def load_python(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if "results" not in data:
        raise ReportError("%s: not the JSON of Benchmarks/python/bench.py" % path)
    results = {int(size): by_kind for size, by_kind in data["results"].items()}
    return {"results": results, "msal": data.get("msal"), "notes": data.get("notes", []),
            "machine": data.get("machine")}


# MARK: - Formatting

def duration(ns):
    """A duration with three significant figures at most: 223 ns, 1.38 µs, 21.9 ms, 104 ms, 2.54 s."""
    if ns is None:
        return "—"
    for unit, size in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= size * 0.9995:
            value = ns / size
            break
    else:
        return "%d ns" % round(ns)
    if value >= 100:
        text = "{:,.0f}".format(value)
    elif value >= 10:
        text = "%.1f" % value
    else:
        text = "%.2f" % value
    return "%s %s" % (text, unit)


def swift_table(results):
    """The Markdown table of the Swift benchmarks: benchmark, goal, p50, p90, met."""
    lines = ["| benchmark | goal (p50) | p50 | p90 | met? |", "|---|---|---|---|---|"]
    names = [name for name, _ in GOALS if name in results]
    known = {name for name, _ in GOALS}
    memory = [name for name in results if name.endswith(" (memory store)") and name[:-15] in known]
    names += sorted(memory, key=lambda n: [g for g, _ in GOALS].index(n[:-15]))
    names += sorted(name for name in results if name not in known and name not in memory)
    goals = dict(GOALS)
    for name in names:
        entry = results[name]
        goal = goals.get(name)
        met = "—" if goal is None else ("yes" if entry["p50"] <= goal else "**no**")
        lines.append("| %s | %s | %s | %s | %s |" % (
            name, "≤ " + duration(goal) if goal else "—", duration(entry["p50"]),
            duration(entry.get("p90")), met))
    p50 = {name: entry["p50"] for name, entry in results.items()}
    blob = ["redis: blob per user lookup", "redis: cold partition lookup", "redis: warm lookup",
            "redis: blob per user save", "redis: save token response"]
    if all(name in p50 for name in blob):
        lines += [""] + textwrap.wrap(
            "A blob per user takes %s× the engine's cold partition lookup and %s× its warm lookup to "
            "answer, and %s× its save to save (p50)." % (
                ratio(p50[blob[0]] / p50[blob[1]]), ratio(p50[blob[0]] / p50[blob[2]]),
                ratio(p50[blob[3]] / p50[blob[4]])), 100, break_on_hyphens=False)
    return "\n".join(lines)


REDIS_ROWS = [
    ("redis: cold partition lookup", "cold partition lookup (store level, 2 round trips)", "redis: blob per user lookup", "a blob lookup"),
    ("redis: cold partition lookup, through the engine",
     "cold partition lookup, through the engine (partition mode: read, decode, index, answer)", "redis: blob per user lookup", None),
    ("redis: warm lookup", "warm lookup", "redis: blob per user lookup", None),
    ("redis: save token response", "save token response (2 round trips)", "redis: blob per user save", "a blob save"),
    ("redis: invalidation seen by another engine", "invalidation seen by another engine (from the start of a save)", None, None),
]


def redis_table(results):
    """docs/scaling.md's table of the Redis benchmarks, each against one blob per user; None without them."""
    if not any(name in results for name, _, _, _ in REDIS_ROWS):
        return None
    goals = dict(GOALS)
    lines = ["| benchmark | goal (p50) | p50 (p90) | compared with one blob per user |", "|---|---|---|---|"]
    for name, label, baseline, what in REDIS_ROWS:
        if name not in results:
            continue
        entry, goal = results[name], goals.get(name)
        measured = duration(entry["p50"]) + (" (%s)" % duration(entry["p90"]) if entry.get("p90") else "")
        compared = "—"
        if baseline in results:
            compared = "%s× faster" % ratio(results[baseline]["p50"] / entry["p50"])
            if what:
                compared += " than %s (%s)" % (what, duration(results[baseline]["p50"]))
        lines.append("| %s | %s | %s | %s |" % (label, "≤ " + duration(goal) if goal else "—", measured, compared))
    return "\n".join(lines)


def ratio(value):
    """A ratio with two or three significant figures: 3.3, 42, 1,360."""
    if value < 10:
        return "%.1f" % value
    if value < 100:
        return "%.0f" % value
    digits = int(math.floor(math.log10(value))) - 2
    return "{:,.0f}".format(round(value, -digits))


SCENARIOS = [("silent", "silent, known account"), ("save", "save a token response"),
             ("after", "silent after another process's save"), ("get_accounts", "get_accounts()"),
             ("accounts_after_save", "get_accounts(), first after a save")]


def python_table(python):
    """bench.py's results as one Markdown table: p50 (p90) per scenario, size and cache."""
    head = "| accounts | cache | " + " | ".join(title for _, title in SCENARIOS) + " |"
    lines = [head, "|---|---|" + "---|" * len(SCENARIOS)]
    for size in sorted(python["results"]):
        by_kind = python["results"][size]
        for kind in [k for k in KINDS if k in by_kind]:
            r = by_kind[kind]
            cells = []
            for key, _ in SCENARIOS:
                if key not in r:
                    cells.append("n/a")
                    continue
                cell = "%s (%s)" % (duration(r[key]["p50_us"] * 1000), duration(r[key]["p90_us"] * 1000))
                if key == "save" and kind == "memory":
                    cell += ", not persisted"
                cells.append(cell)
            lines.append("| {:,} | {} | {} |".format(size, LABELS[kind], " | ".join(cells)))
    about = []
    if python.get("machine"):
        about.append("One run of bench.py on a %s." % python["machine"])
    about.extend(note + ("" if note.endswith(".") else ".") for note in python.get("notes", []))
    if about:
        lines += [""] + textwrap.wrap(" ".join(about), 100, break_on_hyphens=False, break_long_words=False)
    return "\n".join(lines)


# MARK: - Rewriting the document

def replace_block(text, name, content):
    """`text` with what lies between `<!-- NAME:begin -->` and `<!-- NAME:end -->` replaced by `content`."""
    begin, end = "<!-- %s:begin -->" % name, "<!-- %s:end -->" % name
    if text.count(begin) != 1 or text.count(end) != 1:
        raise ReportError("the document needs exactly one %s and one %s" % (begin, end))
    start, stop = text.index(begin) + len(begin), text.index(end)
    if stop < start:
        raise ReportError("%s comes before %s" % (end, begin))
    return text[:start] + "\n" + content.strip("\n") + "\n" + text[stop:]


OPEN_ROWS = [
    ("open store and first lookup", "10,600 items (1,000 users)"),
    ("open store and first lookup, 10,000 accounts",
     "116,667 items (10,000 accounts), access tokens left in the store until used"),
    ("open store and first lookup, partition mode",
     "1,000,000 items (100,000 accounts), partition mode: one account's partitions"),
]


def open_table(results):
    """docs/scaling.md's table of opens by store size; None without them."""
    rows = [(label, results[name]) for name, label in OPEN_ROWS if name in results]
    if not rows:
        return None
    lines = ["| store | open and first lookup, p50 (p90) |", "|---|---|"]
    for label, entry in rows:
        lines.append("| %s | %s%s |" % (label, duration(entry["p50"]),
                                         " (%s)" % duration(entry["p90"]) if entry.get("p90") else ""))
    return "\n".join(lines)


def update_scaling(text, swift):
    """docs/scaling.md with its Redis and open tables (redis-results, open-results markers) from the run."""
    for name, table in (("redis-results", redis_table(swift)), ("open-results", open_table(swift))):
        if table is not None:
            text = replace_block(text, name, table)
    return text


def update_document(text, swift=None, python=None):
    if swift is not None:
        text = replace_block(text, "results", swift_table(swift))
    if python is not None:
        text = replace_block(text, "python-results", python_table(python))
    return text


# MARK: - The chart

def _log_ticks(low, high):
    """Powers of ten covering [low, high]."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    if last == first:
        last += 1
    return [10 ** e for e in range(first, last + 1)]


def tick_label(ns):
    """A power of ten as a short duration: 10 µs, 100 ms, 1 s."""
    for unit, size in (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1)):
        if ns >= size * 0.9995:
            return "{:,.0f} {}".format(ns / size, unit)
    return "%g ns" % ns


def _spread(positions, gap):
    """Label positions (y) moved apart to at least `gap`, keeping their order."""
    order = sorted(range(len(positions)), key=lambda i: positions[i])
    placed = list(positions)
    for before, after in zip(order, order[1:]):
        if placed[after] - placed[before] < gap:
            placed[after] = placed[before] + gap
    return placed


def _esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def chart_svg(python, title=None):
    """A hand-written SVG: two log-log panels (silent lookup, saved token response), p50 against accounts."""
    results = python["results"]
    sizes = sorted(results)
    if not sizes:
        raise ReportError("no sizes in the Python results")
    kinds = [k for k in KINDS if any(k in results[s] for s in sizes)]
    panels = [("silent", "Silent lookup (acquire_token_silent)"),
              ("save", "Saving a token response (persisted)")]
    foot = []
    for note in ([python["machine"]] if python.get("machine") else []) + list(python.get("notes", [])):
        foot.extend(textwrap.wrap(note, 140, subsequent_indent="    ", break_on_hyphens=False))
    width, height = 1010, 452 + 20 * ((len(kinds) + 1) // 2) + 14 * len(foot)
    panel_w, panel_h = 370, 300
    origins = [(100, 70), (590, 70)]
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="13">' % (width, height, width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    count = {1: "one token cache", 2: "two token caches", 3: "three token caches", 4: "four token caches"}[len(kinds)]
    heading = title or "MSAL Python over %s: p50 per call against the number of accounts (log-log)" % count
    out.append('<text x="%d" y="28" text-anchor="middle" font-size="16" font-weight="bold">%s</text>'
               % (width // 2, _esc(heading)))
    xmin, xmax = min(sizes) / 1.6, max(sizes) * 1.6
    for (key, label), (ox, oy) in zip(panels, origins):
        values = [results[s][k][key]["p50_us"] * 1000 for s in sizes for k in kinds
                  if k in results[s] and key in results[s][k]]
        if not values:
            continue
        ticks = _log_ticks(min(values), max(values))
        ymin, ymax = ticks[0], ticks[-1]

        def x_of(v):
            return ox + panel_w * (math.log10(v) - math.log10(xmin)) / (math.log10(xmax) - math.log10(xmin))

        def y_of(v):
            return oy + panel_h - panel_h * (math.log10(v) - math.log10(ymin)) / (math.log10(ymax) - math.log10(ymin))

        out.append('<text x="%d" y="%d" text-anchor="middle" font-size="14" font-weight="bold">%s</text>'
                   % (ox + panel_w // 2, oy - 12, _esc(label)))
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>'
                   % (ox, oy, panel_w, panel_h))
        for tick in ticks:
            y = y_of(tick)
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ccc"/>' % (ox, y, ox + panel_w, y))
            out.append('<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>'
                       % (ox - 6, y, _esc(tick_label(tick))))
            for minor in (2, 5):
                if tick * minor < ymax:
                    ym = y_of(tick * minor)
                    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>' % (ox, ym, ox + panel_w, ym))
        out.append('<text transform="translate(%d,%d) rotate(-90)" text-anchor="middle" font-size="12">'
                   'p50 per call</text>' % (ox - 62, oy + panel_h // 2))
        for size in sizes:
            x = x_of(size)
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, oy, x, oy + panel_h))
            out.append('<text x="%.1f" y="%d" text-anchor="middle">{:,}</text>'.format(size) % (x, oy + panel_h + 18))
        out.append('<text x="%d" y="%d" text-anchor="middle">accounts in the cache</text>'
                   % (ox + panel_w // 2, oy + panel_h + 40))
        labels = []
        for kind in kinds:
            points = [(size, results[size][kind][key]["p50_us"] * 1000) for size in sizes
                      if kind in results[size] and key in results[size][kind]]
            if not points:
                continue
            coords = " ".join("%.1f,%.1f" % (x_of(s), y_of(v)) for s, v in points)
            dash = ' stroke-dasharray="%s"' % DASHES[kind] if DASHES[kind] else ""
            out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5"%s/>'
                       % (coords, COLORS[kind], dash))
            for s, v in points:
                out.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s, %s accounts: %s</title></circle>'
                           % (x_of(s), y_of(v), COLORS[kind], _esc(LABELS[kind]), "{:,}".format(s), duration(v)))
            labels.append((kind, points[-1]))
        ys = _spread([y_of(v) for _, (_, v) in labels], 13)
        for (kind, (s, v)), y in zip(labels, ys):
            out.append('<text x="%.1f" y="%.1f" font-size="11" fill="%s" dominant-baseline="middle">%s</text>'
                       % (x_of(s) + 8, y, COLORS[kind], _esc(duration(v))))
    # The legend, with what each cache kind is and where a size is missing.
    ly = oy + panel_h + 66
    lx = 90
    for kind in kinds:
        missing = [s for s in sizes if kind not in results[s]]
        text = LABELS[kind]
        if kind == "memory":
            text += " (not persisted, not shared)"
        if missing:
            text += " — not run at " + ", ".join("{:,}".format(s) for s in missing)
        dash = ' stroke-dasharray="%s"' % DASHES[kind] if DASHES[kind] else ""
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2.5"%s/>'
                   % (lx, ly, lx + 28, ly, COLORS[kind], dash))
        out.append('<text x="%d" y="%d" dominant-baseline="middle">%s</text>' % (lx + 36, ly, _esc(text)))
        if lx == 90:
            lx = 530
        else:
            lx, ly = 90, ly + 20
    ly += 6 if lx != 90 else -14
    ly += 20
    for note in foot:
        out.append('<text x="90" y="%d" font-size="11" fill="#555">%s</text>' % (ly, _esc(note)))
        ly += 14
    out.append("</svg>")
    svg = "\n".join(out) + "\n"
    return svg


# MARK: - Command line

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--self-check", action="store_true", help="run the fixture tests and exit")
    sub = parser.add_subparsers(dest="command")
    update = sub.add_parser("update", help="rewrite the marked tables of a document (and draw the chart)")
    update.add_argument("--doc", default=os.path.join(os.path.dirname(__file__), "..", "..", "docs", "benchmarks.md"))
    update.add_argument("--swift", help="text output of `swift package benchmark`")
    update.add_argument("--python", help="JSON of Benchmarks/python/bench.py --json")
    update.add_argument("--chart", help="also draw the chart from --python into this SVG file")
    update.add_argument("--scaling", help="also rewrite the Redis table of this document (docs/scaling.md) from --swift")
    chart = sub.add_parser("chart", help="draw the chart")
    chart.add_argument("--python", required=True)
    chart.add_argument("--out", required=True)
    table = sub.add_parser("table", help="print the tables to standard output")
    table.add_argument("--swift")
    table.add_argument("--python")
    args = parser.parse_args(argv)

    if args.self_check:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import test_report
        return test_report.run_all()
    try:
        if args.command == "update":
            if not args.swift and not args.python:
                parser.error("update needs --swift, --python or both")
            swift = parse_swift(open(args.swift, encoding="utf-8").read()) if args.swift else None
            python = load_python(args.python) if args.python else None
            with open(args.doc, encoding="utf-8") as f:
                text = f.read()
            new = update_document(text, swift, python)
            with open(args.doc, "w", encoding="utf-8") as f:
                f.write(new)
            print("report: %s %s" % (args.doc, "rewritten" if new != text else "unchanged"))
            if args.scaling and swift is not None:
                with open(args.scaling, encoding="utf-8") as f:
                    text = f.read()
                new = update_scaling(text, swift)
                with open(args.scaling, "w", encoding="utf-8") as f:
                    f.write(new)
                print("report: %s %s" % (args.scaling, "rewritten" if new != text else "unchanged"))
            if args.chart:
                if python is None:
                    parser.error("--chart needs --python")
                with open(args.chart, "w", encoding="utf-8") as f:
                    f.write(chart_svg(python))
                print("report: drew %s" % args.chart)
        elif args.command == "chart":
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(chart_svg(load_python(args.python)))
            print("report: drew %s" % args.out)
        elif args.command == "table":
            if args.swift:
                print(swift_table(parse_swift(open(args.swift, encoding="utf-8").read())))
            if args.python:
                print(python_table(load_python(args.python)))
        else:
            parser.print_help()
            return 2
    except ReportError as error:
        print("report: error: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
