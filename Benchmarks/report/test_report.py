"""Fixture tests of report.py: reading the runs, the tables, rewriting between markers, the chart.

    python3 Benchmarks/report/test_report.py       (or: report.py --self-check, or: pytest Benchmarks/report)
"""

import os
import sys
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import report  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def test_text_report_gives_p50_and_p90_in_nanoseconds():
    results = report.parse_swift(fixture("swift-text.txt"))
    assert results["account by identifier"] == {"p50": 223, "p90": 227, "mallocs": 0}
    assert results["account by identifier (memory store)"]["p50"] == 205
    large = results["open store and first lookup, 10,000 accounts"]
    assert (large["p50"], large["p90"], large["mallocs"]) == (104_000_000, 115_000_000, 891_000)
    assert results["redis: save token response"]["p50"] == 612_000
    assert results["redis: save token response"]["p90"] == 690_000
    assert "Metric" not in results and "TokenCacheBenchmarks" not in results


def test_markdown_report_and_exponent_notation():
    results = report.parse_swift(fixture("swift-markdown.md"))
    assert results["family refresh token"]["p50"] == 283
    assert results["family refresh token"]["p90"] == 367
    assert results["open store and first lookup, partition mode"]["p50"] == 12_300_000
    assert results["open store and first lookup, partition mode"]["p90"] == 55_300_000


def test_empty_report_is_an_error():
    try:
        report.parse_swift("Build complete!\nnothing here\n")
    except report.ReportError:
        return
    raise AssertionError("a report without results was accepted")


def test_durations():
    cases = {223: "223 ns", 999: "999 ns", 1_000: "1.00 µs", 1_380: "1.38 µs", 21_900_000: "21.9 ms",
             104_000_000: "104 ms", 2_540_000_000: "2.54 s", 481_000: "481 µs", 1_234_000: "1.23 ms", None: "—"}
    for value, text in cases.items():
        assert report.duration(value) == text, (value, report.duration(value), text)


def test_swift_table_orders_by_goals_and_judges_the_goal():
    table = report.swift_table(report.parse_swift(fixture("swift-text.txt"))).splitlines()
    assert table[0] == "| benchmark | goal (p50) | p50 | p90 | met? |"
    rows = [line.split(" | ")[0].lstrip("| ") for line in table[2:]]
    assert rows == ["account by identifier", "open store and first lookup, 10,000 accounts",
                    "redis: save token response", "account by identifier (memory store)", "a new benchmark"]
    assert table[2] == "| account by identifier | ≤ 500 ns | 223 ns | 227 ns | yes |"
    assert table[3] == "| open store and first lookup, 10,000 accounts | ≤ 150 ms | 104 ms | 115 ms | yes |"
    assert table[4] == "| redis: save token response | ≤ 500 µs | 612 µs | 690 µs | **no** |"
    assert table[6] == "| a new benchmark | — | 3.00 µs | 5.00 µs | — |"


def test_blob_ratios_follow_the_table():
    results = {name: {"p50": p50, "p90": None, "mallocs": None} for name, p50 in [
        ("redis: blob per user lookup", 762_000), ("redis: cold partition lookup", 228_000),
        ("redis: warm lookup", 560), ("redis: blob per user save", 735_000), ("redis: save token response", 305_000)]}
    table = report.swift_table(results).splitlines()
    assert " ".join(table[-2:]) == ("A blob per user takes 3.3× the engine's cold partition lookup and 1,360× its "
                                    "warm lookup to answer, and 2.4× its save to save (p50)."), table[-2:]
    assert [report.ratio(v) for v in (3.34, 42.4, 1360.7, 12345)] == ["3.3", "42", "1,360", "12,300"]
    del results["redis: warm lookup"]
    assert "blob per user takes" not in report.swift_table(results)


def test_redis_table_for_scaling():
    results = {name: {"p50": p50, "p90": p90, "mallocs": None} for name, p50, p90 in [
        ("redis: blob per user lookup", 762_000, None), ("redis: cold partition lookup", 228_000, 302_000),
        ("redis: warm lookup", 560, 608), ("redis: blob per user save", 735_000, None),
        ("redis: save token response", 305_000, 344_000)]}
    table = report.redis_table(results).splitlines()
    assert table[2] == ("| cold partition lookup (store level, 2 round trips) | ≤ 250 µs | 228 µs (302 µs) | "
                        "3.3× faster than a blob lookup (762 µs) |"), table[2]
    assert table[3] == "| warm lookup | ≤ 1.00 µs | 560 ns (608 ns) | 1,360× faster |", table[3]
    assert len(table) == 5
    doc = ("a\n<!-- redis-results:begin -->\nold\n<!-- redis-results:end -->\n"
           "<!-- open-results:begin -->\nold\n<!-- open-results:end -->\nb\n")
    new = report.update_scaling(doc, results)
    assert new.startswith("a\n<!-- redis-results:begin -->\n" + "\n".join(table) + "\n<!-- redis-results:end -->\n")
    assert new.endswith("<!-- open-results:begin -->\nold\n<!-- open-results:end -->\nb\n")  # no opens in the run
    assert report.update_scaling(doc, {"account by identifier": {"p50": 1, "p90": 1}}) == doc
    opens = report.parse_swift(fixture("swift-text.txt"))
    new = report.update_scaling(doc, opens)
    assert ("| 116,667 items (10,000 accounts), access tokens left in the store until used | 104 ms (115 ms) |"
            in new), new


def test_python_table_one_row_per_size_and_cache():
    python = report.load_python(os.path.join(FIXTURES, "python.json"))
    table = report.python_table(python).splitlines()
    assert len(table) == 2 + 6 + 2
    assert table[-1] == "One run of bench.py on a fixture machine. tokencache-partitions: left out (fixture)."
    assert table[2].startswith("| 1,000 | MSAL Python in-memory | 13.0 µs (14.0 µs) | 160 µs (194 µs), not persisted | n/a |")
    assert "| 10,000 | msal-extensions file | 16.0 µs (17.0 µs) | 2.54 s (3.23 s) |" in table[6]


def test_rewriting_replaces_only_between_the_markers_and_is_idempotent():
    doc = fixture("doc.md")
    swift = report.parse_swift(fixture("swift-text.txt"))
    python = report.load_python(os.path.join(FIXTURES, "python.json"))
    once = report.update_document(doc, swift, python)
    assert "| old | table |" not in once and "old python table" not in once
    assert once.startswith("# Title\n\nText before.\n\n<!-- results:begin -->\n| benchmark |")
    assert once.endswith("<!-- python-results:end -->\n\nText after.\n")
    assert "\n\nBetween.\n\n" in once
    assert report.update_document(once, swift, python) == once
    only_python = report.update_document(doc, None, python)
    assert "| old | table |" in only_python and "old python table" not in only_python


def test_missing_or_doubled_markers_are_errors():
    for broken in ["no markers at all\n",
                   "<!-- results:begin -->\n<!-- results:begin -->\n<!-- results:end -->\n",
                   "<!-- results:end -->\nx\n<!-- results:begin -->\n"]:
        try:
            report.replace_block(broken, "results", "x")
        except report.ReportError:
            continue
        raise AssertionError("accepted: %r" % broken)


def test_chart_is_svg_with_a_line_per_cache_and_notes_missing_sizes():
    python = report.load_python(os.path.join(FIXTURES, "python.json"))
    svg = report.chart_svg(python)
    root = ElementTree.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    lines = root.findall(ns + "polyline")
    assert len(lines) == 2 * 3, len(lines)  # two panels, three caches
    texts = " ".join(t.text or "" for t in root.iter(ns + "text"))
    assert "tokencache-partitions: left out (fixture)" in texts
    assert "msal-extensions file" in texts and "10,000" in texts
    assert "MSAL Python over three token caches" in texts
    # A log scale: the silent panel's ticks are powers of ten around 13-16 µs.
    assert "10 µs" in texts and "100 µs" in texts


def run_all():
    tests = [value for name, value in sorted(globals().items()) if name.startswith("test_")]
    failed = 0
    for test in tests:
        try:
            test()
            print("ok    %s" % test.__name__)
        except Exception as error:  # noqa: BLE001 - report every failure
            failed += 1
            print("FAIL  %s: %r" % (test.__name__, error))
    print("%d of %d passed" % (len(tests) - failed, len(tests)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_all())
