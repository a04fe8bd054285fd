"""The catalogue (rmbook.course.exercises): every exercise has a hint (#43 item 9: a stuck student gets a nudge before
the solution), and its title, labels and hint are read from its task cell, the one place they are written (#41: no
second copy in the chapter's course.py to keep equal)."""
import json

import pytest

from rmbook.course import catalogue, exercise, task_text
from rmbook.course.exercises import _CHECKS
from rmlib.errors import RmlibError

LABELS = "*Difficulty 2/5 · importance 4/5 · about 15 minutes*"
HINT = "```{admonition} Hint\n:class: dropdown\nSort first, then count the pairs once.\n```"


def test_every_exercise_has_a_hint_that_is_not_its_solution():
    from rmbook.book.course import reference_solution

    for ex in catalogue().values():
        assert len(ex.hint) > 40, ex.id
        assert ex.hint_block().startswith("```{admonition} Hint\n:class: dropdown\n") and ex.hint in ex.hint_block()
        solution = reference_solution(ex.id)
        assert solution.__name__ not in ex.hint or "def " not in ex.hint, ex.id  # a nudge, not the code


def test_a_task_cell_gives_its_title_labels_and_hint_and_they_round_trip():
    got = task_text(f"### Exercise 3: Kendall's τ-b\n\n{LABELS}\n\nWrite it.\n\n{HINT}\n", "planted")
    assert got == {"title": "Kendall's τ-b", "difficulty": 2, "importance": 4, "minutes": 15,
                   "hint": "Sort first, then count the pairs once."}
    ex = next(iter(catalogue().values()))
    assert task_text(f"### Exercise: {ex.title}\n\n{ex.label()}\n\nText.\n\n{ex.hint_block()}", "x")["hint"] == ex.hint


@pytest.mark.parametrize("source, message", [
    (f"### Exercise 1: τ\n\n{LABELS}\n\nWrite it.", "a folded hint at its end"),
    (f"### Exercise 1: τ\n\n{LABELS}\n\n```{{admonition}} Hint\n:class: dropdown\n  \n```", "a folded hint"),
    (f"### Exercise 1: τ\n\n{LABELS}\n\n{HINT}\n\nMore text after the hint.", "a folded hint at its end"),
    (f"### Exercise 1: τ\n\nWrite it.\n\n{HINT}", r"the line '\*Difficulty"),
    (f"Exercise 1: τ\n\n{LABELS}\n\n{HINT}", "a heading '### Exercise <n>: <title>'"),
    (f"### Exercise 1: τ\n\n{LABELS.replace('2/5', '7/5')}\n\n{HINT}", "difficulty and importance are 1 to 5"),
])
def test_a_task_cell_missing_a_part_is_refused_with_which(source, message):
    with pytest.raises(ValueError, match=message):
        task_text(source, "planted")


def test_a_check_without_a_task_cell_and_a_task_without_a_check_are_refused(tmp_path, monkeypatch):
    task = {"cell_type": "markdown", "metadata": {"rmlib": {"exercise": {"id": "planted.orphan", "role": "task"}}},
            "source": f"### Exercise 1: τ\n\n{LABELS}\n\n{HINT}"}
    (tmp_path / "planted.ipynb").write_text(json.dumps({"cells": [task]}))
    with pytest.raises(RmlibError, match=r"no check: \['planted.orphan'\]"):
        catalogue(tmp_path)  # the real checks have no task here, and this task no check
    monkeypatch.setitem(_CHECKS, "planted.orphan", lambda fn: 1)
    with pytest.raises(RmlibError, match="no task cell: .*heterogeneity.tau_b"):
        catalogue(tmp_path)


def test_an_id_without_a_name_and_a_second_check_under_one_id_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="<chapter>.<name>"):
        exercise("planted")

    def first(fn):
        return 1

    def second(fn):
        return 1

    monkeypatch.setitem(_CHECKS, "planted.twice", first)
    with pytest.raises(ValueError, match="registered twice"):
        exercise("planted.twice")(second)
