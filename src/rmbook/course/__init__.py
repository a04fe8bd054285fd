"""The course edition's exercises (layer 7): checks that tell a student whether the function they wrote is right.

Modules:

* ``exercises.py``: the catalogue of exercises (their checks, joined with the title, labels and hint their task cells
  carry) and :func:`check`, which a check cell calls.

Each chapter's checks are in its own folder, ``rmbook/chapters/<chapter>/course.py`` (:mod:`rmbook.chapters`), each
saying in its docstring what its exercises ask; the catalogue finds them by the chapter's name.

The notebooks mark each exercise's cells in their metadata; :mod:`rmbook.book.course` builds the student and instructor
editions from them (``make course``).
"""
from rmbook.course.exercises import (CheckFailed, Exercise, Passed, catalogue, check, checks, close, exercise, expect,
                                     task_text)

__all__ = ["CheckFailed", "Exercise", "Passed", "catalogue", "check", "checks", "close", "exercise", "expect",
           "task_text"]
