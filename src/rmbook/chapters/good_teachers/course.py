"""Checks of the good-teachers chapter's exercises: reward variance under π_0, and one step of KL-regularised policy
gradient over a finite set of responses (the step the chapter's ascent integrates)."""
from __future__ import annotations

import numpy as np

from rmbook.chapters.good_teachers import dynamics
from rmbook.course.exercises import close, exercise, expect

# Planted (reward, π_0): a policy on the first items, a uniform one, one on the top items, one almost a point mass. The
# uniform (unweighted) variance is right only on the uniform case, so every other case tells it apart.
VARIANCE_CASES = {
    "a policy on the first items": ([0.0, 1.0, 2.0, 3.0], [0.6, 0.25, 0.1, 0.05]),
    "a uniform policy": ([2.0, -1.0, 0.5, 3.5, 1.0], [0.2] * 5),
    "a policy on the top items": ([-1.2, -0.4, 0.1, 0.7, 1.9, 2.3], [0.02, 0.02, 0.06, 0.1, 0.4, 0.4]),
    "a policy almost on one item": ([5.0, -3.0, 1.0, 4.0], [0.97, 0.01, 0.01, 0.01]),
}


def _as_float(x) -> float:
    a = np.asarray(x, dtype=float)
    return float(a) if a.size == 1 else float("nan")


@exercise("good_teachers.reward_variance")
def check_reward_variance(reward_variance) -> int:
    """``reward_variance(reward, pi0)`` must be Var_{y~π_0}[r(y)] = Σ π_0 (r − E_π0[r])² on the planted cases."""
    for name, (r, p) in VARIANCE_CASES.items():
        r, p = np.array(r), np.array(p)
        want = float(dynamics.reward_variance(r, p)[0])
        got = reward_variance(r.copy(), p.copy())
        expect(np.size(got) == 1, f"return one number (the variance), got an array of shape {np.shape(got)}")
        got = _as_float(got)
        if close(got, want):
            continue
        hint = ""
        if close(got, np.var(r)):
            hint = (" That is the variance with every item weighted alike (np.var): weight each item by π_0(y), "
                    "the responses the policy actually produces.")
        elif close(got, np.sqrt(want)):
            hint = " That is the standard deviation: the variance is its square."
        elif close(got, p @ r ** 2):
            hint = " That is E_π0[r²]: subtract the mean's square, Var = E_π0[r²] − E_π0[r]²."
        elif close(got, p @ (r - r.mean()) ** 2):
            hint = " You centred on the unweighted mean: centre on E_π0[r] = Σ π_0(y) r(y)."
        expect(False, f"Var is {got:.4f} on {name} (r={r.tolist()}, π_0={p.tolist()}); Var_π0[r] is "
                      f"{want:.4f}.{hint}")
    return len(VARIANCE_CASES)


# Planted (θ, r, π_0, β, η): θ ≠ 0 everywhere, so the KL term −βθ and the current policy π_θ matter.
STEP_CASES = {
    "three items, β = 1": ([0.3, -0.2, 0.5], [1.0, 0.0, -1.0], [0.5, 0.3, 0.2], 1.0, 0.5),
    "four items, β = 0.25": ([1.0, 0.0, -0.5, 0.2], [0.2, 1.5, -0.3, 0.8], [0.1, 0.2, 0.3, 0.4], 0.25, 1.0),
    "five items, β = 2": ([-0.4, 0.9, 0.0, 0.3, -1.1], [2.0, -1.0, 0.5, 0.0, 1.0], [0.3, 0.1, 0.2, 0.25, 0.15],
                         2.0, 0.1),
}


def _step(theta, r, p0, beta, eta, *, centre=True, own_policy=True, with_pi0=True):
    """θ + η π ⊙ (A − E_π[A]), A = r − βθ, and its usual mistakes (no baseline, π_0 for π_θ, softmax(θ) for π_θ)."""
    logits = (np.log(p0) if with_pi0 else 0.0) + theta
    pi = np.exp(logits - logits.max())
    pi = pi / pi.sum() if own_policy else p0
    adv = r - beta * theta
    if centre:
        adv = adv - pi @ adv
    return theta + eta * pi * adv


@exercise("good_teachers.pg_step")
def check_pg_step(pg_step) -> int:
    """``pg_step(theta, reward, pi0, beta, eta)`` must return θ + η ∇J(θ), with ∇J = π_θ ⊙ (A − E_π[A]),
    A = r − βθ and π_θ ∝ π_0 e^θ, against rmbook.chapters.good_teachers.analysis.gradient on the planted cases."""
    for name, (theta, r, p0, beta, eta) in STEP_CASES.items():
        theta, r, p0 = np.array(theta), np.array(r), np.array(p0)
        grad = dynamics.gradient(theta, r, p0, beta)
        want = theta + eta * grad
        got = pg_step(theta.copy(), r.copy(), p0.copy(), beta, eta)
        expect(np.shape(got) == theta.shape, f"return the new logits, one per item (shape {theta.shape}), got "
                                             f"shape {np.shape(got)}")
        got = np.asarray(got, dtype=float)
        if close(got, want):
            continue
        hints = [
            (eta * grad, "That is the step η∇J alone: return the new logits θ + η∇J."),
            (grad, "That is the gradient ∇J: return the new logits θ + η∇J."),
            (theta - eta * grad, "That is a descent step: policy gradient *ascends* J, θ + η∇J."),
            (theta + eta * dynamics.gradient(theta, r, p0, 0.0),
             "The KL term is missing: the advantage is A = r − βθ, not r (log π_θ/π_0 = θ − log Z)."),
            (theta + eta * dynamics.gradient(theta, r, p0, -beta),
             "The KL term has the wrong sign: the penalty pulls θ back toward 0, so A = r − βθ."),
            (_step(theta, r, p0, beta, eta, centre=False),
             "The baseline is missing: subtract E_π[A] from the advantage (the softmax's normalisation "
             "Z(θ) gives that term)."),
            (_step(theta, r, p0, beta, eta, own_policy=False),
             "You weighted by π_0: the gradient is taken at the current policy π_θ ∝ π_0·e^θ."),
            (_step(theta, r, p0, beta, eta, with_pi0=False),
             "π_θ is π_0·e^θ/Z, not softmax(θ): add log π_0 to the logits."),
        ]
        hint = next((h for wrong, h in hints if close(got, wrong)), "")
        expect(False, f"the new θ is {np.round(got, 4).tolist()} on {name} (θ={theta.tolist()}, r={r.tolist()}, "
                      f"π_0={p0.tolist()}, β={beta}, η={eta}); it should be {np.round(want, 4).tolist()}. {hint}")
    # the flow's fixed point: at θ = r/β (π ∝ π_0 e^{r/β}, the KL optimum) the advantage is constant, so no step
    r, p0, beta = np.array([1.0, -0.5, 0.25]), np.array([0.2, 0.5, 0.3]), 0.5
    still = np.asarray(pg_step(r / beta, r, p0, beta, 1.0), dtype=float)
    expect(close(still, r / beta, atol=1e-9), f"at the KL optimum θ = r/β = {(r / beta).tolist()} the step must be 0 "
                                              f"(A = r − βθ is 0 there), got θ = {np.round(still, 4).tolist()}")
    return len(STEP_CASES) + 1
