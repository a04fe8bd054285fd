"""The course edition end to end (#27): `make course` builds both editions; every student notebook, run top to bottom,
fails only where a stub is still to be written (each check raising its own stub's NotImplementedError) and nowhere
else; every instructor notebook runs clean, each check passing; no solution text is left in a student notebook."""
from __future__ import annotations

import json

import pytest

from rmlib.book import chapter
from rmlib.book.course import build_course, check_exercises, course_chapters, execute_edition, solution_leaks, stub_errors

pytestmark = [pytest.mark.slow, pytest.mark.embedded]
CHAPTERS = course_chapters()


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    out = tmp_path_factory.mktemp("course")
    return build_course(out, log=lambda *_: None)


def _path(course, edition, name):
    return next(p for p in course[edition] if p.stem == name)


def test_the_course_builds_every_chapter_with_exercises(course):
    assert sorted(p.stem for p in course["student"]) == sorted(CHAPTERS)
    assert sorted(p.stem for p in course["instructor"]) == sorted(CHAPTERS)


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_solution_text_is_left_in_a_student_notebook(course, name):
    student = json.loads(_path(course, "student", name).read_text())
    teacher = json.loads(_path(course, "instructor", name).read_text())
    assert solution_leaks(student, teacher) == []


@pytest.mark.parametrize("name", CHAPTERS)
def test_a_student_notebook_stops_only_at_its_stubs(course, name):
    executed = execute_edition(_path(course, "student", name), allow_errors=True)
    reached, other = stub_errors(executed)
    assert other == [], f"{name}: errors other than a stub's NotImplementedError"
    assert sorted(reached) == sorted(check_exercises(chapter(name).cells(), name)), "a stub was never reached"


@pytest.mark.parametrize("name", CHAPTERS)
def test_an_instructor_notebook_runs_clean_and_every_check_passes(course, name):
    executed = execute_edition(_path(course, "instructor", name), allow_errors=True)
    reached, other = stub_errors(executed)
    assert reached == [] and other == []
    checks = [c for c in executed["cells"] if (c["metadata"].get("rmlib") or {}).get("exercise", {}).get("role")
              == "check"]
    shown = ["".join(o.get("data", {}).get("text/markdown", "")) for c in checks for o in c["outputs"]]
    assert len(checks) == len(check_exercises(chapter(name).cells(), name)) and all("✓" in s for s in shown)
