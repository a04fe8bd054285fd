"""The heterogeneity exercises' checks pass on the chapter's reference solutions and fail on planted wrong answers,
with a message that names the mistake."""
import numpy as np
import pytest
from scipy import stats

from rmbook import course
from rmbook.book.course import reference_solution
from rmbook.chapters.heterogeneity.course import _tau_a


@pytest.mark.parametrize("ex", ["heterogeneity.tau_b", "heterogeneity.noise_floor"])
def test_the_reference_solution_passes(ex):
    assert course.check(ex, reference_solution(ex)).cases >= 4


# planted wrong answers for τ-b, each with the words the hint must contain
def tau_a(x, y):
    return _tau_a(x, y)


def flipped(x, y):
    return -stats.kendalltau(x, y).statistic


def spearman(x, y):
    return stats.spearmanr(x, y).statistic


@pytest.mark.parametrize("wrong, hint", [(tau_a, "That is τ-a"), (flipped, "sign is flipped"),
                                         (spearman, "τ-b is")])
def test_tau_b_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("heterogeneity.tau_b", wrong)


def same_permutation(x, y, n, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        p = rng.permutation(len(x))
        out.append(stats.kendalltau(np.asarray(x)[p], np.asarray(y)[p]).statistic)
    return np.array(out)


def unseeded(x, y, n, seed):
    rng = np.random.default_rng()
    return np.array([stats.kendalltau(x, rng.permutation(y)).statistic for _ in range(n)])


def one_value(x, y, n, seed):
    return stats.kendalltau(x, np.random.default_rng(seed).permutation(y)).statistic


@pytest.mark.parametrize("wrong, hint", [(same_permutation, "same permutation"), (unseeded, "same seed"),
                                         (one_value, "one τ per shuffle")])
def test_noise_floor_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("heterogeneity.noise_floor", wrong)


def test_a_stub_raises_its_own_error_through_the_check():
    def stub(x, y):
        raise NotImplementedError("Exercise 1")

    with pytest.raises(NotImplementedError, match="Exercise 1"):
        course.check("heterogeneity.tau_b", stub)
