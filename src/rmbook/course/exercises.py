"""The course's exercises: a catalogue of labelled checks, and :func:`check`, which a notebook's check cell calls.

Each exercise asks a student to write one function that the chapter then uses. Its words are the notebook's: the
task cell (metadata ``rmlib.exercise``, role ``task``) carries the heading with the title, the labels line and the
folded hint, where a student reads them and a teacher edits them, and the catalogue reads them from there
(:func:`task_text`). Its check runs the student's function on planted inputs whose right answer is known, and fails
with a message that says what went wrong ("τ is 0.33; for tied pairs use τ-b"), not just "wrong". Each chapter's
checks live in its folder's ``course.py`` (:mod:`rmbook.chapters`), not in the notebooks, so that unit tests can
prove each one passes on the reference solution and fails on planted wrong answers (``tests/unit/chapters``); they
register here by exercise id, ``<chapter>.<name>``, with :func:`exercise`.
"""
from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rmbook.locate import FOLDER, NOTEBOOKS, PACKAGE
from rmlib.errors import RmlibError

__all__ = ["Exercise", "CheckFailed", "Passed", "exercise", "task_text", "checks", "catalogue", "check", "expect", "close"]

# the task cell's three parts, as Exercise.label() and Exercise.hint_block() write them
TITLE = re.compile(r"^#+\s*Exercise(?: \d+)?\s*:\s*(?P<title>\S.*?)\s*$", re.M)
LABELS = re.compile(r"^\*Difficulty (?P<difficulty>\d+)/5 · importance (?P<importance>\d+)/5 · "
                    r"about (?P<minutes>\d+) minutes\*\s*$", re.M)
HINT = re.compile(r"```\{admonition\} Hint\n:class: dropdown\n(?P<hint>.*?)\n```\s*\Z", re.S)


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
        """The line under an exercise's heading in its task cell (:func:`task_text` reads it back)."""
        return (f"*Difficulty {self.difficulty}/5 · importance {self.importance}/5 · "
                f"about {self.minutes} minutes*")

    def hint_block(self) -> str:
        """The folded hint at the end of the task cell (:func:`task_text` reads it back)."""
        return f"```{{admonition}} Hint\n:class: dropdown\n{self.hint}\n```"


_CHECKS: dict[str, Callable] = {}


def exercise(id: str):
    """Register the decorated function as the check of exercise ``id`` (``<chapter>.<name>``); the exercise's
    title, labels and hint are its task cell's (:func:`task_text`)."""
    if not id.partition(".")[2]:
        raise ValueError(f"exercise {id!r}: the id is <chapter>.<name>")

    def register(fn: Callable) -> Callable:
        if id in _CHECKS and _CHECKS[id].__qualname__ != fn.__qualname__:
            raise ValueError(f"exercise {id!r} is registered twice ({_CHECKS[id].__qualname__}, {fn.__qualname__})")
        _CHECKS[id] = fn
        return fn

    return register


def task_text(source: str, where: str) -> dict:
    """The title, labels and hint of one task cell's markdown: ``### Exercise <n>: <title>``, the line
    ``*Difficulty d/5 · importance i/5 · about m minutes*`` (d and i from 1 to 5), and, last, the folded hint
    (a stuck student's nudge: the approach or the library call, not the answer). A part missing is a ValueError that
    says which and how it is written."""
    title, labels, hint = TITLE.search(source), LABELS.search(source), HINT.search(source)
    missing = [what for what, found in (("a heading '### Exercise <n>: <title>'", title),
                                        ("the line '*Difficulty <1-5>/5 · importance <1-5>/5 · about <m> minutes*'",
                                         labels),
                                        ("a folded hint at its end, '```{admonition} Hint' / ':class: dropdown' / "
                                         "<the hint> / '```'", hint and hint.group("hint").strip()))
               if not found]
    if missing:
        raise ValueError(f"{where}: the task cell needs {'; '.join(missing)}")
    numbers = {k: int(v) for k, v in labels.groupdict().items()}
    if not (1 <= numbers["difficulty"] <= 5 and 1 <= numbers["importance"] <= 5 and numbers["minutes"] > 0):
        raise ValueError(f"{where}: difficulty and importance are 1 to 5 and minutes more than 0, got {numbers}")
    return {"title": title.group("title"), **numbers, "hint": hint.group("hint").strip()}


def _load(chapter: str) -> None:
    """Import chapter ``chapter``'s checks (its folder's ``course.py``), which register its exercises."""
    if (FOLDER / chapter / "course.py").is_file():
        importlib.import_module(f"{PACKAGE}.{chapter}.course")


def checks() -> dict[str, Callable]:
    """{exercise id: its check} over every chapter's ``course.py``."""
    for folder in sorted(FOLDER.glob("*/course.py")):
        _load(folder.parent.name)
    return dict(_CHECKS)


def _tasks(notebooks: Path) -> dict[str, dict]:
    """{exercise id: its task cell's text} over every notebook template, where each exercise is written."""
    out = {}
    for path in sorted(notebooks.glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8")).get("cells", []):
            mark = cell.get("metadata", {}).get("rmlib", {}).get("exercise")
            if isinstance(mark, dict) and mark.get("role") == "task":
                source = "".join(cell.get("source", ""))
                out[mark["id"]] = task_text(source, f"{path.name}, exercise {mark['id']}")
    return out


def _exercise(exercise_id: str, run_check: Callable, task: dict) -> Exercise:
    """One exercise from its check and its task cell's text (:func:`task_text`)."""
    return Exercise(exercise_id, exercise_id.partition(".")[0], run_check=run_check, **task)


def catalogue(notebooks: Path = NOTEBOOKS) -> dict[str, Exercise]:
    """Every exercise of the course, by id: each chapter's checks (importing its ``course.py``) joined with the
    task cells of the notebook templates. An exercise written with no check, or a check with no task, is an error."""
    tasks, found = _tasks(notebooks), checks()
    unchecked, untasked = sorted(set(tasks) - set(found)), sorted(set(found) - set(tasks))
    if unchecked or untasked:
        raise RmlibError(f"every exercise needs a task cell in {notebooks} and a check in its chapter's course.py: "
                         + "; ".join(f"{what}: {ids}" for what, ids in (("no check", unchecked), ("no task cell",
                                                                                                  untasked)) if ids))
    return {id: _exercise(id, found[id], tasks[id]) for id in sorted(tasks)}


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
    if exercise_id not in _CHECKS:
        raise KeyError(f"no exercise {exercise_id!r}; the course has {sorted(catalogue())}")
    if not callable(fn):
        raise CheckFailed(f"{exercise_id}: pass the function itself (e.g. `kendall_tau_b`), not {type(fn).__name__}")
    task = _tasks(NOTEBOOKS).get(exercise_id)
    if task is None:
        raise KeyError(f"exercise {exercise_id!r} has a check but no task cell in {NOTEBOOKS}")
    ex = _exercise(exercise_id, _CHECKS[exercise_id], task)
    return Passed(ex, int(ex.run_check(fn)))


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
