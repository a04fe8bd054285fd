"""The course's exercises: a catalogue of labelled checks, and :func:`check`, which a notebook's check cell calls.

Each exercise asks a student to write one function that the chapter then uses. Its check runs that function on
planted inputs whose right answer is known, and fails with a message that says what went wrong ("τ is 0.33; for tied
pairs use τ-b"), not just "wrong". Each chapter's checks live in its folder's ``course.py`` (:mod:`rmbook.chapters`),
not in the notebooks, so that unit tests can prove each one passes on the reference solution and fails on planted
wrong answers (``tests/unit/course``); they register here by exercise id, ``<chapter>.<name>``.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rmbook.chapters import FOLDER
from rmlib.errors import RmlibError

__all__ = ["Exercise", "CheckFailed", "Passed", "exercise", "catalogue", "check", "expect", "close"]



class CheckFailed(RmlibError, AssertionError):
    """A student's function gave a wrong answer on a planted case; the message says which case and what to fix."""


@dataclass(frozen=True)
class Exercise:
    """One exercise: which chapter it is in, its title, its labels (1–5 and minutes), and the check."""

    id: str
    chapter: str
    title: str
    difficulty: int
    importance: int
    minutes: int
    run_check: Callable = None  # (student function) -> number of planted cases passed; raises CheckFailed
    hint: str = ""  # a nudge toward the approach, folded under the task until a student opens it

    def label(self) -> str:
        """The line under an exercise's heading; the notebooks carry it verbatim (a unit test compares them)."""
        return (f"*Difficulty {self.difficulty}/5 · importance {self.importance}/5 · "
                f"about {self.minutes} minutes*")

    def hint_block(self) -> str:
        """The folded hint at the end of the task cell; the notebooks carry it verbatim, as they carry the label."""
        return f"```{{admonition}} Hint\n:class: dropdown\n{self.hint}\n```"


_CATALOGUE: dict[str, Exercise] = {}


def exercise(id: str, *, title: str, difficulty: int, importance: int, minutes: int, hint: str):
    """Register the decorated function as the check of exercise ``id`` (``<chapter>.<name>``); ``hint``: a nudge a
    stuck student can open (the approach or the library call, not the answer)."""
    chapter, _, name = id.partition(".")
    if not name or not all(1 <= v <= 5 for v in (difficulty, importance)) or minutes <= 0 or not hint.strip():
        raise ValueError(f"exercise {id!r}: the id is <chapter>.<name>, difficulty and importance 1–5, minutes > 0, "
                         "and a hint")

    def register(fn: Callable) -> Callable:
        if id in _CATALOGUE:
            raise ValueError(f"exercise {id!r} is registered twice")
        _CATALOGUE[id] = Exercise(id, chapter, title, difficulty, importance, minutes, fn, hint.strip())
        return fn

    return register


def _load(chapter: str) -> None:
    """Import chapter ``chapter``'s checks (its folder's ``course.py``), which register its exercises."""
    if (FOLDER / chapter / "course.py").is_file():
        importlib.import_module(f"rmbook.chapters.{chapter}.course")


def catalogue() -> dict[str, Exercise]:
    """Every exercise of the course, by id (imports every chapter's checks)."""
    for folder in sorted(FOLDER.glob("*/course.py")):
        _load(folder.parent.name)
    return dict(_CATALOGUE)


@dataclass(frozen=True)
class Passed:
    """What a check cell shows when the student's function is right."""

    exercise: Exercise
    cases: int

    def _repr_markdown_(self) -> str:
        return (f"✓ **{self.exercise.title}**: your function passes all {self.cases} planted "
                f"case{'s' if self.cases != 1 else ''} (check `{self.exercise.id}`).")

    def __repr__(self) -> str:
        return f"passed {self.exercise.id} ({self.cases} planted cases)"


def check(exercise_id: str, fn: Callable) -> Passed:
    """Run exercise ``exercise_id``'s check on the student's ``fn``.

    A stub that is not written yet raises its ``NotImplementedError`` here, unchanged: a notebook run as it is stops
    at the first exercise left to do. A wrong answer raises :class:`CheckFailed` with a hint."""
    _load(exercise_id.split(".")[0])  # only this chapter's checks: a chapter's page depends on its own alone
    found = dict(_CATALOGUE)
    if exercise_id not in found:
        raise KeyError(f"no exercise {exercise_id!r}; the course has {sorted(catalogue())}")
    if not callable(fn):
        raise CheckFailed(f"{exercise_id}: pass the function itself (e.g. `kendall_tau_b`), not {type(fn).__name__}")
    ex = found[exercise_id]
    cases = ex.run_check(fn)
    return Passed(ex, int(cases))


def expect(condition: bool, message: str) -> None:
    """Fail the check with ``message`` unless ``condition`` holds."""
    if not condition:
        raise CheckFailed(message)


def close(got, want, *, atol: float = 1e-6, rtol: float = 1e-6) -> bool:
    """Whether a student's number (or array) equals the reference within tolerance; False for a wrong shape/type."""
    try:
        got_a, want_a = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    except (TypeError, ValueError):
        return False
    return got_a.shape == want_a.shape and bool(np.allclose(got_a, want_a, atol=atol, rtol=rtol, equal_nan=True))
