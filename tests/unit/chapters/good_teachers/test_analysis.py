"""rmbook.chapters.good_teachers.analysis: the exact policy-gradient dynamics, accuracy and variance over a finite
response set."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.good_teachers import analysis as tg


def _problem(n=12, seed=0):
    rng = np.random.default_rng(seed)
    pi0 = rng.random(n) + 0.05
    return rng.normal(size=n), rng.normal(size=n), pi0 / pi0.sum(), rng


# --------------------------------------------------------------------------- the objective and its gradient

@pytest.mark.parametrize("beta", [0.0, 0.3, 2.0])
def test_exact_gradient_matches_finite_differences(beta):
    r, _, pi0, rng = _problem()
    for _ in range(5):
        theta = rng.normal(scale=2.0, size=r.size)
        eps, eye = 1e-6, np.eye(r.size)
        fd = np.array([(tg.objective(theta + eps * e, r, pi0, beta) - tg.objective(theta - eps * e, r, pi0, beta))
                       / (2 * eps) for e in eye])
        np.testing.assert_allclose(tg.gradient(theta, r, pi0, beta), fd, atol=1e-8)


def test_objective_is_reward_minus_beta_kl():
    r, _, pi0, rng = _problem()
    theta = rng.normal(size=r.size)
    p = tg.policy(theta, pi0)
    kl = float(np.sum(p * np.log(p / pi0)))
    assert tg.objective(theta, r, pi0, 0.7) == pytest.approx(float(p @ r) - 0.7 * kl, abs=1e-12)
    assert tg.objective(np.zeros(r.size), r, pi0, 5.0) == pytest.approx(float(pi0 @ r))  # KL(π_0‖π_0) = 0


def test_curvature_bound_bounds_the_hessian():
    for seed in range(5):
        r, _, pi0, rng = _problem(n=9, seed=seed)
        theta, beta, eps = rng.normal(scale=2.0, size=r.size), 0.5, 1e-6
        hess = np.array([(tg.gradient(theta + eps * e, r, pi0, beta) - tg.gradient(theta - eps * e, r, pi0, beta))
                         / (2 * eps) for e in np.eye(r.size)])
        p = tg.policy(theta, pi0)
        adv = r - beta * theta
        adv = adv - p @ adv
        assert np.linalg.norm(hess, 2) <= tg.curvature_bound(p, adv, beta) + 1e-9


# --------------------------------------------------------------------------- the dynamics

def _euler_flow(r, pi0, truth, beta, eta, steps, substeps=2000):
    """Reference: the gradient flow by many tiny explicit Euler steps, E_π[r*] after each step."""
    theta, out = np.zeros_like(r), [tg.policy(np.zeros_like(r), pi0) @ truth]
    for _ in range(steps):
        for _ in range(substeps):
            theta = theta + eta / substeps * tg.gradient(theta, r, pi0, beta)
        out.append(tg.policy(theta, pi0) @ truth)
    return np.array(out)


def test_ascent_follows_the_gradient_flow_and_never_lowers_the_objective():
    r, truth, pi0, _ = _problem(n=30, seed=3)
    r = 4 * r  # a large reward range, so that the policy concentrates and the sub-steps have work to do
    t = tg.ascend(r, pi0, truth, beta=0.5, lr=0.5, steps=12)
    ref = _euler_flow(r, pi0, truth, 0.5, t.eta, 12, substeps=4000)
    assert t.substeps[0] > 12  # it did subdivide
    assert np.diff(t.objective[:, 0]).min() > -1e-12
    err = {c: np.abs(tg.ascend(r, pi0, truth, beta=0.5, lr=0.5, steps=12, substep=c).truth[:, 0] - ref).max()
           for c in (0.5, 0.25, 0.1)}
    assert err[0.5] < 5e-3 and err[0.1] < 3e-4, err       # the default is close; finer sub-steps converge
    assert err[0.25] < err[0.5] / 3, err                   # at second order (Heun)


def test_rows_are_independent_runs():
    r, truth, pi0, rng = _problem(n=20, seed=4)
    r2 = rng.normal(size=r.size)
    both = tg.ascend(np.vstack([r, r2]), pi0, truth, beta=1.0, lr=0.05, steps=20)
    one = tg.ascend(r2, pi0, truth, beta=1.0, lr=0.05, steps=20)
    np.testing.assert_allclose(both.truth[:, 1], one.truth[:, 0], atol=1e-12)


def test_long_ascent_reaches_the_kl_optimum():
    r, truth, pi0, _ = _problem(n=15, seed=5)
    t = tg.ascend(r, pi0, truth, beta=0.8, lr=2.0, steps=300)
    star = tg.kl_optimum(r, pi0, 0.8)[0]
    np.testing.assert_allclose(tg.policy(t.theta[0], pi0), star, atol=1e-6)
    assert t.truth[-1, 0] == pytest.approx(star @ truth, abs=1e-6)


def test_learning_rate_scales_with_the_effective_number_of_items():
    n = 40
    assert tg.effective_size(tg.uniform_pi0(n)) == pytest.approx(n)
    p = tg.concentrated_pi0(n, [0, 1, 2, 3], 0.999)
    assert 3.9 < tg.effective_size(p) < 4.1
    t = tg.ascend(np.arange(n, dtype=float), p, np.arange(n, dtype=float), beta=1.0, lr=0.01, steps=1)
    assert t.eta == pytest.approx(0.01 * tg.effective_size(p))


def test_planted_perfectly_accurate_low_variance_rm_teaches_more_slowly():
    """Razin et al.'s clean case, built by hand: r1 orders everything right but barely separates what π_0 produces."""
    rng = np.random.default_rng(0)
    n = 400
    truth = np.sort(rng.normal(size=n))                      # items sorted by r*
    band = np.arange(300, 360)                               # π_0 holds most of its mass on this band of r*
    pi0 = tg.concentrated_pi0(n, band, 0.98)
    accurate = truth.copy()                                   # strictly increasing in r*, flat on the band
    lo, hi = truth[band].min(), truth[band].max()
    accurate[band] = lo + 0.01 * (truth[band] - lo)
    accurate[band.max() + 1:] = truth[band.max() + 1:] - (hi - lo) * 0.99
    noisy = truth + rng.normal(scale=0.8, size=n)
    assert tg.pairwise_accuracy(accurate, truth) == 1.0 > tg.pairwise_accuracy(noisy, truth)
    R = np.vstack([tg.standardise(accurate), tg.standardise(noisy)])
    var = tg.reward_variance(R, pi0)
    assert var[0] < 0.1 * var[1]
    t = tg.ascend(R, pi0, truth, beta=1.0, lr=0.01, steps=50)
    gain = t.truth - t.truth[0]
    assert (gain[1:, 1] > gain[1:, 0]).all(), gain[[1, 10, 50]]   # the less accurate RM leads at every step


def test_planted_teachers_helper_builds_the_clean_case():
    rng = np.random.default_rng(1)
    truth = rng.normal(size=600)
    support = np.argsort(-truth)[:50]
    pi0 = {"top 50": tg.concentrated_pi0(600, support, 0.95)}
    planted = tg.planted_teachers(truth, support, seed=2)
    table, _ = tg.teaching_table(pd.DataFrame(planted), truth, pi0, beta=1.0, lr=0.01, steps=40, gain_steps=40,
                                 gain_target=0.05)
    acc, noisy = table.set_index("model").loc["accurate"], table.set_index("model").loc["noisy"]
    assert acc.accuracy_uniform == 1.0 and acc.accuracy_pi0 == 1.0 and noisy.accuracy_uniform < 0.9
    assert acc.variance_pi0 < 0.5 * noisy.variance_pi0
    assert noisy.gain_T > acc.gain_T and noisy.initial_rate > acc.initial_rate


def test_steps_to_gain_is_the_first_crossing_and_nan_when_never_reached():
    gain = np.array([[0.0, 0.0], [0.1, 0.0], [0.3, 0.05], [0.2, 0.1]])
    out = tg.steps_to_gain(gain, 0.25)
    assert out[0] == 2 and np.isnan(out[1])


# --------------------------------------------------------------------------- accuracy and variance

def _brute_accuracy(r, s, w):
    num = den = 0.0
    for i in range(r.size):
        for j in range(r.size):
            if i != j and s[i] != s[j]:
                den += w[i] * w[j]
                num += w[i] * w[j] * (0.5 + 0.5 * np.sign(r[i] - r[j]) * np.sign(s[i] - s[j]))
    return num / den


def test_exact_accuracy_equals_the_sum_over_all_pairs_with_ties():
    rng = np.random.default_rng(7)
    for trial in range(25):
        n = int(rng.integers(3, 45))
        r = rng.integers(0, 5, n).astype(float) if trial % 2 else rng.normal(size=n)
        s = rng.integers(0, 4, n).astype(float)
        if np.unique(s).size < 2:
            continue
        w = rng.random((3, n))
        got = tg.pairwise_accuracy(r, s, w)
        want = [_brute_accuracy(r, s, row) for row in w]
        np.testing.assert_allclose(got, want, atol=1e-12)
        assert tg.pairwise_accuracy(r, s) == pytest.approx(_brute_accuracy(r, s, np.ones(n)), abs=1e-12)


def test_accuracy_is_one_for_a_monotone_reward_and_zero_for_a_reversed_one():
    s = np.arange(50.0)
    assert tg.pairwise_accuracy(np.exp(s / 10), s) == 1.0
    assert tg.pairwise_accuracy(-s, s) == 0.0
    assert tg.pairwise_accuracy(np.zeros(50), s) == 0.5          # an RM that ties everything is a coin


def test_sampled_accuracy_converges_to_the_exact_one():
    r, s, pi0, _ = _problem(n=200, seed=8)
    exact = tg.pairwise_accuracy(r, s, pi0)
    est = tg.sampled_accuracy(r, s, pi0, 200_000, seed=1)
    assert abs(est - exact) < 4 * 0.5 / np.sqrt(200_000)


def test_variance_is_one_under_a_uniform_pi0_after_standardising():
    r, _, pi0, _ = _problem(n=100, seed=9)
    z = tg.standardise(5 * r + 3)
    assert tg.reward_variance(z, tg.uniform_pi0(100))[0] == pytest.approx(1.0)
    np.testing.assert_allclose(tg.reward_variance(z, pi0), tg.reward_variance(tg.standardise(r), pi0))


# --------------------------------------------------------------------------- bad input gets a clear error

def test_bad_inputs_are_refused_with_a_reason():
    r, s, pi0, _ = _problem()
    bad = pi0.copy()
    bad[0] = 0.0
    with pytest.raises(ValueError, match="strictly positive"):
        tg.ascend(r, bad / bad.sum(), s, beta=1.0, lr=0.1, steps=2)
    with pytest.raises(ValueError, match="sums to"):
        tg.reward_variance(r, pi0 * 2)
    with pytest.raises(ValueError, match="NaN or infinite"):
        tg.standardise(np.r_[r[:-1], np.nan])
    with pytest.raises(ValueError, match="constant reward"):
        tg.standardise(np.ones(5))
    with pytest.raises(ValueError, match="gain_steps"):
        tg.teaching_table(pd.DataFrame({"a": r}), s, {"p": pi0}, beta=1.0, lr=0.1, steps=5, gain_steps=6,
                          gain_target=0.1)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        tg.concentrated_pi0(10, [1, 2], 1.0)
