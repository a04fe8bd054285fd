"""The distributions exercises' checks pass on the chapter's reference solutions and fail on planted wrong answers,
with a message that names the mistake."""
import numpy as np
import pytest
from scipy import stats

from rmbook import course
from rmbook.book.course import reference_solution


@pytest.mark.parametrize("ex", ["distributions.skewness", "distributions.bootstrap_ci"])
def test_the_reference_solution_passes(ex):
    assert course.check(ex, reference_solution(ex)).cases >= 4


def _moments(x):
    x = np.asarray(x, float)
    d = x - x.mean()
    return len(x), np.mean(d ** 2), np.mean(d ** 3)


# planted wrong answers for the skewness, each with the words the hint must contain
def biased(x):
    return stats.skew(x, bias=True)


def flipped(x):
    return -stats.skew(x, bias=False)


def over_variance(x):
    n, m2, m3 = _moments(x)
    return m3 / m2 * np.sqrt(n * (n - 1)) / (n - 2)


def sample_sd_cubed(x):
    n, _, m3 = _moments(x)
    return m3 / np.std(x, ddof=1) ** 3


def kurtosis(x):
    return stats.kurtosis(x, bias=False)


@pytest.mark.parametrize("wrong, hint", [(biased, "biased \\(population\\) skewness"), (flipped, "sign is flipped"),
                                         (over_variance, "divided by the variance"),
                                         (sample_sd_cubed, "sample SD \\(ddof=1\\)"),
                                         (kurtosis, "adjusted Fisher-Pearson skewness is")])
def test_skewness_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("distributions.skewness", wrong)


# planted wrong answers for the bootstrap interval
def _skews(x, idx):
    return stats.skew(np.asarray(x, float)[idx], axis=1, bias=False)


def without_replacement(x, n, seed):
    rng = np.random.default_rng(seed)
    s = np.array([stats.skew(rng.permutation(x), bias=False) for _ in range(n)])
    return tuple(np.quantile(s, [0.025, 0.975]))


def unseeded(x, n, seed):
    rng = np.random.default_rng()
    return tuple(np.quantile(_skews(x, rng.integers(0, len(x), (n, len(x)))), [0.025, 0.975]))


def ninety_percent(x, n, seed):
    rng = np.random.default_rng(seed)
    return tuple(np.quantile(_skews(x, rng.integers(0, len(x), (n, len(x)))), [0.05, 0.95]))


def percent_as_fraction(x, n, seed):
    rng = np.random.default_rng(seed)
    return tuple(np.percentile(_skews(x, rng.integers(0, len(x), (n, len(x)))), [0.025, 0.975]))


def basic_interval(x, n, seed):
    rng = np.random.default_rng(seed)
    lo, hi = np.quantile(_skews(x, rng.integers(0, len(x), (n, len(x)))), [0.025, 0.975])
    est = stats.skew(x, bias=False)
    return 2 * est - hi, 2 * est - lo


def of_the_mean(x, n, seed):
    rng = np.random.default_rng(seed)
    return tuple(np.quantile(np.asarray(x)[rng.integers(0, len(x), (n, len(x)))].mean(axis=1), [0.025, 0.975]))


@pytest.mark.parametrize("wrong, hint", [(without_replacement, "zero width"), (unseeded, "same seed"),
                                         (ninety_percent, "90% interval"), (percent_as_fraction, "np.percentile"),
                                         (basic_interval, "basic \\(reflected\\)"),
                                         (of_the_mean, "contain the sample's own skewness")])
def test_bootstrap_ci_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("distributions.bootstrap_ci", wrong)
