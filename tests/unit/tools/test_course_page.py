"""tools/course_page.py: the syllabus (book/course.md) lists every exercise in some session, shows measured times for
every course notebook, and its generated blocks are current."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import yaml

from rmlib.book.course import course_chapters

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
