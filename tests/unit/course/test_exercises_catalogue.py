"""The catalogue (rmbook.course.exercises): every exercise has a hint, and registering one without a hint is refused
(#43 item 9: a stuck student gets a nudge before the solution)."""
import pytest

from rmbook.course import catalogue, exercise


def test_every_exercise_has_a_hint_that_is_not_its_solution():
    from rmbook.book.course import reference_solution

    for ex in catalogue().values():
        assert len(ex.hint) > 40, ex.id
        assert ex.hint_block().startswith("```{admonition} Hint\n:class: dropdown\n") and ex.hint in ex.hint_block()
        solution = reference_solution(ex.id)
        assert solution.__name__ not in ex.hint or "def " not in ex.hint, ex.id  # a nudge, not the code


def test_an_exercise_without_a_hint_is_refused():
    with pytest.raises(ValueError, match="and a hint"):
        exercise("planted.x", title="x", difficulty=1, importance=1, minutes=1, hint="  ")
