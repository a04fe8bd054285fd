"""The finetuning exercise's check passes on the chapter's reference solution and fails on planted wrong answers,
with a message that names the mistake (#43 item 9)."""
import numpy as np
import pytest

from rmbook import course
from rmbook.book.course import reference_solution

EX = "finetuning.bt_loss"


def test_the_reference_solution_passes():
    assert course.check(EX, reference_solution(EX)).cases == 3


def _acc(m, tie=0.5):
    return float(np.mean((m > 0) + tie * (m == 0)))


def naive(c, r):
    m = c - r
    with np.errstate(over="ignore", divide="ignore"):
        return float(np.mean(-np.log(1 / (1 + np.exp(-m))))), _acc(m)


@pytest.mark.parametrize("wrong, hint", [
    (naive, "not finite"),
    (lambda c, r: (float(np.mean(-np.logaddexp(0, -(c - r)))), _acc(c - r)), "wrong sign"),
    (lambda c, r: (float(np.mean(np.logaddexp(0, c - r))), _acc(r - c)), "margin is reversed"),
    (lambda c, r: (float(np.sum(np.logaddexp(0, r - c))), _acc(c - r)), "summed loss"),
    (lambda c, r: (float(np.mean(np.logaddexp(0, r - c))), _acc(c - r, tie=0.0)), "counts one half"),
    (lambda c, r: float(np.mean(np.logaddexp(0, r - c))), "two numbers"),
])
def test_a_wrong_answer_is_told_what_is_wrong(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check(EX, wrong)
