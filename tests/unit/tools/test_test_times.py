"""tools/test_times.py turns a pytest JUnit report into tests/README.md's time table: tiers by folder, outcomes
counted, the slowest tests first."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("test_times",
                                               Path(__file__).resolve().parents[3] / "tools" / "test_times.py")
tt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tt)

REPORT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.unit.stats.test_a" name="test_one" time="0.5"/>
<testcase classname="tests.unit.stats.test_a" name="test_two" time="1.5"><skipped message="no data"/></testcase>
<testcase classname="tests.chapters.test_book" name="test_html[x]" time="90.25"/>
<testcase classname="tests.integration.test_plan_ray" name="test_ray" time="30"><failure message="boom"/></testcase>
</testsuite></testsuites>"""


def test_tiers_are_summed_and_outcomes_counted(tmp_path):
    path = tmp_path / "r.xml"
    path.write_text(REPORT)
    got = tt.cases(str(path))
    assert ("unit", "tests/unit/stats/test_a.py::test_two", 1.5, "skipped") in got
    assert ("integration", "tests/integration/test_plan_ray.py::test_ray", 30.0, "failed") in got
    lines = tt.table(str(path), slowest=2).splitlines()
    assert lines[2] == "| `chapters/` | 1 | 1 | 0 | 0 | 90 |"  # the costliest tier first
    assert "| `unit/` | 2 | 1 | 1 | 0 | 2 |" in lines and "| all | 4 | | | | 122 |" in lines
    slow = lines[lines.index("|---|---:|") + 1:]
    assert slow == ["| `tests/chapters/test_book.py::test_html[x]` | 90.2 |",
                    "| `tests/integration/test_plan_ray.py::test_ray` | 30.0 |"]
