"""The implicit-vs-explicit exercise's check passes on the chapter's reference solution and fails on planted wrong
answers, with a message that names the mistake."""
import numpy as np
import pytest

from rmbook import course
from rmbook.book.course import reference_solution

EX = "implicit_vs_explicit.dpo_reward"


def test_the_reference_solution_passes():
    assert course.check(EX, reference_solution(EX)).cases >= 4


def _rewards(pc, rc, pr, rr, beta, combine=np.sum, scale=True, swap=False, flip_margin=False):
    k = beta if scale else 1.0
    a, b = (combine(rc) - combine(pc), combine(rr) - combine(pr)) if swap else (combine(pc) - combine(rc),
                                                                              combine(pr) - combine(rr))
    return k * a, k * b, (k * b - k * a) if flip_margin else (k * a - k * b)


@pytest.mark.parametrize("wrong, hint", [
    (lambda *a: _rewards(*a, scale=False), "β is missing"),
    (lambda *a: _rewards(*a, swap=True), "swapped"),
    (lambda *a: _rewards(*a, combine=np.mean), "averaged"),
    (lambda *a: _rewards(*a, flip_margin=True), "margin is reversed"),
    (lambda pc, rc, pr, rr, beta: (beta * (pc - rc), beta * (pr - rr), 0.0), "sum the per-token"),
    (lambda *a: _rewards(*a)[2], "three numbers"),
])
def test_dpo_reward_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check(EX, wrong)
