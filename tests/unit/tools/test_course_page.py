"""tools/course_page.py: the syllabus (book/course.md) lists every exercise in some session, shows measured times for
every course notebook, and its generated blocks are current."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import yaml

from rmbook.book.course import course_chapters

_spec = importlib.util.spec_from_file_location("course_page", Path(__file__).resolve().parents[3] / "tools" / "course_page.py")
cp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cp)


def test_the_syllabus_is_current():
    text = cp.PAGE.read_text(encoding="utf-8")
    assert cp.render(text) == text, "run: python tools/course_page.py"


def test_every_chapter_with_exercises_is_in_exactly_one_session():
    text = cp.PAGE.read_text(encoding="utf-8")
    blocks = [m.split() for m in re.findall(r"<!-- exercises: ([^>]*) -->", text)]
    listed = [name for block in blocks for name in block]
    assert sorted(listed) == sorted(course_chapters())
    sessions = re.findall(r"^## Session \d+", text, flags=re.M)
    assert 6 <= len(sessions) <= 8


def test_the_times_were_measured_for_every_course_notebook():
    data = yaml.safe_load(cp.TIMES.read_text(encoding="utf-8"))
    assert sorted(data["chapters"]) == sorted(course_chapters()), "run: python tools/course_page.py --measure"
    for name, t in data["chapters"].items():
        assert t["student_s"] > 0 and t["instructor_s"] > 0 and t["exercises"] == len(cp.chapter_exercises(name))


def test_a_block_is_filled_from_the_catalogue():
    out = cp.render("<!-- exercises: heterogeneity -->\nstale\n<!-- /exercises -->\n")
    assert "stale" not in out and "`heterogeneity.tau_b`" in out and "| 2/5 |" in out


def test_a_chapter_measured_again_alone_is_marked_with_its_own_date_and_load(tmp_path, monkeypatch):
    times = tmp_path / "times.yaml"
    times.write_text(yaml.safe_dump({
        "machine": "a CPU", "date": "2026-12-01", "load_before": 0.5, "peak_kernel_memory_gib": 2.0,
        "chapters": {"heterogeneity": {"exercises": 2, "student_s": 25.0, "instructor_s": 23.0},
                     "blinding": {"exercises": 2, "student_s": 36.0, "instructor_s": 30.0,
                                  "date": "2026-12-02", "load_before": 0.1}}}))
    monkeypatch.setattr(cp, "TIMES", times)
    table = cp.times_table()
    assert "| blinding † | 2 | 36 | 30 |" in table and "| heterogeneity | 2 | 25 | 23 |" in table
    assert "blinding on 2026-12-02 (load average 0.1 before)" in table and "heterogeneity on" not in table
    assert "| **all** | 4 | | 53 |" in table


def test_measuring_a_chapter_without_a_course_notebook_is_refused_before_anything_runs(monkeypatch):
    import pytest

    monkeypatch.setattr(cp, "build_course", lambda *a, **k: pytest.fail("nothing may be built"))
    with pytest.raises(SystemExit, match="no course notebook for \\['about'\\]"):
        cp.measure(["about"])
