"""The good-teachers exercises' checks pass on the chapter's reference solutions and fail on planted wrong answers,
with a message that names the mistake."""
import numpy as np
import pytest

from rmbook import course
from rmbook.book.course import reference_solution
from rmbook.chapters.good_teachers import analysis as teaching


@pytest.mark.parametrize("ex", ["good_teachers.reward_variance", "good_teachers.pg_step"])
def test_the_reference_solution_passes(ex):
    assert course.check(ex, reference_solution(ex)).cases >= 4


def uniform_variance(r, p):
    return float(np.var(r))


def standard_deviation(r, p):
    return float(np.sqrt(teaching.reward_variance(r, p)[0]))


def second_moment(r, p):
    return float(np.asarray(p) @ np.asarray(r) ** 2)


def unweighted_mean(r, p):
    r = np.asarray(r)
    return float(np.asarray(p) @ (r - r.mean()) ** 2)


def per_item(r, p):
    r = np.asarray(r)
    return np.asarray(p) * (r - np.asarray(p) @ r) ** 2


@pytest.mark.parametrize("wrong, hint", [(uniform_variance, "weighted alike"), (standard_deviation, "standard deviation"),
                                         (second_moment, "subtract the mean"), (unweighted_mean, "unweighted mean"),
                                         (per_item, "one number")])
def test_reward_variance_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("good_teachers.reward_variance", wrong)


def _step(theta, r, p0, beta, eta, kl_sign=-1.0, baseline=True, weights="policy", sign=1.0):
    theta, r, p0 = (np.asarray(a, dtype=float) for a in (theta, r, p0))
    pi = teaching.policy(theta, p0) if weights == "policy" else p0 if weights == "pi0" else \
        np.exp(theta) / np.exp(theta).sum()
    a = r + kl_sign * beta * theta
    if baseline:
        a = a - pi @ a
    return theta + sign * eta * pi * a


@pytest.mark.parametrize("wrong, hint", [
    (lambda t, r, p, b, e: _step(t, r, p, b, e, kl_sign=0.0), "KL term is missing"),
    (lambda t, r, p, b, e: _step(t, r, p, b, e, kl_sign=1.0), "KL term has the wrong sign"),
    (lambda t, r, p, b, e: _step(t, r, p, b, e, baseline=False), "baseline is missing"),
    (lambda t, r, p, b, e: _step(t, r, p, b, e, weights="pi0"), "weighted by π_0"),
    (lambda t, r, p, b, e: _step(t, r, p, b, e, weights="softmax"), "add log π_0"),
    (lambda t, r, p, b, e: _step(t, r, p, b, e, sign=-1.0), "descent step"),
    (lambda t, r, p, b, e: e * teaching.gradient(t, r, p, b), "the step η∇J alone"),
])
def test_pg_step_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("good_teachers.pg_step", wrong)


def test_a_step_that_ignores_the_kl_optimum_is_caught():
    def drifts(t, r, p, b, e):  # right on the planted cases, wrong at the fixed point
        out = _step(t, r, p, b, e)
        return out + (1e-3 if np.allclose(t, np.asarray(r) / b) else 0.0)

    with pytest.raises(course.CheckFailed, match="KL optimum"):
        course.check("good_teachers.pg_step", drifts)
