"""The moral_foundations exercise's check passes on the chapter's reference solution and fails on planted wrong
answers, with a message that names the mistake (#43 item 9)."""
import numpy as np
import pytest

from rmbook import course
from rmbook.book.course import reference_solution
from rmlib.stats.effects import cohen_d, hedges_g

EX = "moral_foundations.hedges_g"


def test_the_reference_solution_passes():
    assert course.check(EX, reference_solution(EX)).cases == 4


def _pooled(a, b, ddof=1):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.sqrt(((len(a) - ddof) * a.var(ddof=ddof) + (len(b) - ddof) * b.var(ddof=ddof)) / (len(a) + len(b) - 2 * ddof))


@pytest.mark.parametrize("wrong, hint", [
    (lambda a, b: float(hedges_g(b, a)), "sign is flipped"),
    (lambda a, b: float(cohen_d(a, b)), "That is Cohen's d"),
    (lambda a, b: float(cohen_d(a, b)) * (1 - 3 / (4 * (len(a) + len(b) - 2) - 1)), "approximation"),
    (lambda a, b: float(hedges_g(a, b) * _pooled(a, b) / np.sqrt((np.var(a, ddof=1) + np.var(b, ddof=1)) / 2)),
     "averages the two variances"),
    (lambda a, b: float(hedges_g(a, b) * _pooled(a, b) / np.concatenate([a, b]).std(ddof=1)),
     "SD of both families together"),
    (lambda a, b: np.array([hedges_g(a, b)] * 2), "return one number"),
])
def test_a_wrong_answer_is_told_what_is_wrong(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check(EX, wrong)
