"""Fixture tests of check.py, CI's comparison of a short run with the recorded baseline.

    python3 Benchmarks/report/test_check.py       (or: pytest Benchmarks/report)
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import check  # noqa: E402

BASE = {
    "lookup": {"p90": 300, "mallocs": 0},
    "save": {"p90": 200_000, "mallocs": 456},
}


def test_same_run_passes():
    lines, failures = check.compare({name: dict(entry) for name, entry in BASE.items()}, BASE)
    assert failures == 0 and all(line.startswith("ok") for line in lines)


def test_noise_in_time_passes_and_a_tenfold_p90_fails():
    run = {"lookup": {"p90": 2_900, "mallocs": 0}, "save": {"p90": 900_000, "mallocs": 456}}
    assert check.compare(run, BASE)[1] == 0
    run["lookup"]["p90"] = 3_100
    lines, failures = check.compare(run, BASE)
    assert failures == 1 and any(line.startswith("FAIL lookup") for line in lines)


def test_allocations_that_grow_fail():
    assert check.compare({"lookup": {"p90": 300, "mallocs": 2}, "save": {"p90": 1, "mallocs": 570}}, BASE)[1] == 0
    assert check.compare({"lookup": {"p90": 300, "mallocs": 3}, "save": {"p90": 1, "mallocs": 456}}, BASE)[1] == 1
    assert check.compare({"lookup": {"p90": 300, "mallocs": 0}, "save": {"p90": 1, "mallocs": 571}}, BASE)[1] == 1


def test_a_missing_benchmark_fails_and_a_new_one_is_listed():
    lines, failures = check.compare({"lookup": {"p90": 300, "mallocs": 0}, "extra": {"p90": 1, "mallocs": 1}}, BASE)
    assert failures == 1
    assert "FAIL save: not in the run" in lines
    assert any(line.startswith("new  extra") for line in lines)


if __name__ == "__main__":
    tests = [value for name, value in sorted(globals().items()) if name.startswith("test_")]
    for test in tests:
        test()
    print(f"{len(tests)} passed, 0 failed")
