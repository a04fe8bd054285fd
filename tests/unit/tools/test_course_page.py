"""tools/course_page.py: every chapter with exercises is taught in a session and its notebooks were measured; a
measurement is refused before anything runs for a chapter without a course notebook."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("course_page", Path(__file__).resolve().parents[3] / "tools" / "course_page.py")
cp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cp)


def test_every_course_notebook_is_in_a_session_and_was_measured():
    assert cp.problems() == [], "run: python tools/course_page.py --measure <chapter>"


def test_a_chapter_in_no_session_or_not_measured_is_named(monkeypatch):
    monkeypatch.setattr(cp, "taught_chapters", lambda: ["heterogeneity", "framing"])
    real = cp.course_metadata
    monkeypatch.setattr(cp, "course_metadata", lambda n: {"session": 4} if n == "framing" else real(n))
    found = cp.problems()
    assert "framing: not measured (run python tools/course_page.py --measure framing)" in found
    assert any(p.startswith("method: no session") for p in found)


def test_measuring_a_chapter_without_a_course_notebook_is_refused_before_anything_runs(monkeypatch):
    monkeypatch.setattr(cp, "build_course", lambda *a, **k: pytest.fail("nothing may be built"))
    with pytest.raises(SystemExit, match="no course notebook for \\['about'\\]"):
        cp.measure(["about"])
