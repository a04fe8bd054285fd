"""The course edition end to end (#27): `make course` builds both editions; every student notebook, run top to bottom,
fails only where a stub is still to be written (each check raising its own stub's NotImplementedError) and nowhere
else; every instructor notebook runs clean, each check passing; no solution text is left in a student notebook.

Each edition is executed once per test store (#37), at the tiny book's size (the chapter's test parameters, as in
tests/chapters/conftest.py): the student edition here; the instructor edition holds exactly the chapter's own cells,
so the chapter's standard run in the tiny book is its execution (the instructor test checks that the cells are the
same, then reads that run). The course's own parameters (``<name>.course.yaml``) are checked when the course is built.
A student notebook executed in an earlier session is reused only while its cells, its parameters and the store's key
(rmlib, data, environment) are unchanged."""
from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from rmbook.book import chapter as declared
from rmbook.book.course import (build_course, check_exercises, course_chapters, execute_edition, solution_leaks,
                               student_edition, stub_errors)
from rmbook.book.solutions import without_markers
from rmlib.storage import atomic
from rmlib.storage.atomic import file_lock

pytestmark = [pytest.mark.slow, pytest.mark.embedded]
CHAPTERS = course_chapters()


@pytest.fixture(scope="module")
def course(chapter):
    with file_lock(chapter.store / "locks" / "course.lock"):
        return build_course(chapter.store / "course", log=lambda *_: None, force=True)


def _path(course, edition, name):
    return next(p for p in course[edition] if p.stem == name)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def executed_student(chapter, name) -> dict:
    """The student edition of ``name`` at the chapter's test parameters, run top to bottom with every error allowed
    (as a student's "Run all"), or the copy executed from the same cells, parameters and source earlier in this
    store."""
    import papermill

    ch = declared(name)
    nb = student_edition(ch.cells())
    params = ch.parameters(tiny=True, overrides=ch.test_parameters)
    if ch.declares_results:
        params["RESULTS_DIR"] = "results"  # next to the notebook, as in the course
    # the source files the chapter's own run executed: an edit to its analysis or checks reruns this copy too
    key = _sha(json.dumps([nb, params, chapter.ran_source(name)], sort_keys=True, default=str).encode())
    folder = chapter.store / "course-tiny" / name
    done, mark = folder / "student.executed.ipynb", folder / "student.executed.sha256"
    with file_lock(chapter.store / "locks" / f"course-{name}.lock"), pytest.MonkeyPatch.context() as mp:
        if done.is_file() and mark.is_file() and mark.read_text() == f"{key} {_sha(done.read_bytes())}":
            return json.loads(done.read_text())
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        if ch.test_isolated_cache:
            mp.setenv("RMLIB_CACHE_DIR", str(folder / "cache"))  # tiny random models, computed cold as in the book
        source, prepared = folder / "student.source.ipynb", folder / "student.ipynb"
        source.write_text(json.dumps(nb), encoding="utf-8")
        papermill.execute_notebook(str(source), str(prepared), parameters=params, prepare_only=True,
                                   kernel_name="python3", progress_bar=False, log_output=False)
        executed = execute_edition(prepared, allow_errors=True)
        data = json.dumps(executed, ensure_ascii=False).encode()
        atomic.write_bytes(done, data)
        atomic.write_bytes(mark, f"{key} {_sha(data)}".encode())
        return executed


def _code(nb: dict) -> list[str]:
    """The code cells' sources, less the parameters cells (each run injects its own values)."""
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"
            and not {"parameters", "injected-parameters"} & set(c.get("metadata", {}).get("tags", []))]


def test_the_course_builds_every_chapter_with_exercises(course):
    assert sorted(p.stem for p in course["student"]) == sorted(CHAPTERS)
    assert sorted(p.stem for p in course["instructor"]) == sorted(CHAPTERS)


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_solution_text_is_left_in_a_student_notebook(course, name):
    student = json.loads(_path(course, "student", name).read_text())
    teacher = json.loads(_path(course, "instructor", name).read_text())
    assert solution_leaks(student, teacher) == []


@pytest.mark.parametrize("name", CHAPTERS)
def test_a_student_notebook_stops_only_at_its_stubs(chapter, name):
    executed = executed_student(chapter, name)
    reached, other = stub_errors(executed)
    assert other == [], f"{name}: errors other than a stub's NotImplementedError"
    assert sorted(reached) == sorted(check_exercises(declared(name).cells(), name)), "a stub was never reached"


@pytest.mark.parametrize("name", CHAPTERS)
def test_an_instructor_notebook_runs_clean_and_every_check_passes(course, chapter, name):
    instructor = json.loads(_path(course, "instructor", name).read_text())
    executed = json.loads(chapter(name).path.read_text())
    assert _code(without_markers(instructor)) == _code(executed), "the instructor edition is not the chapter the tiny " \
                                                                 "book ran (less the solutions' markers)"
    reached, other = stub_errors(executed)
    assert reached == [] and other == []
    checks = [c for c in executed["cells"] if (c["metadata"].get("rmlib") or {}).get("exercise", {}).get("role")
              == "check"]
    shown = ["".join(o.get("data", {}).get("text/markdown", "")) for c in checks for o in c["outputs"]]
    assert len(checks) == len(check_exercises(declared(name).cells(), name)) == len(shown)
    assert all("✓" in s for s in shown)
