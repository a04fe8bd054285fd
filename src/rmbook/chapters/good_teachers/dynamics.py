"""Is an accurate reward model a good teacher? Exact policy-gradient dynamics over a finite set of responses.

Razin et al. (2025, "What makes a reward model a good teacher? An optimization perspective") prove that when a
proxy reward r has low variance under the policy being trained, the RLHF objective is flat there, so policy gradient
climbs slowly however *accurate* r is; a less accurate RM with more variance can teach faster. This module makes that
testable on a finite response set Y (EloEverything items, or a vocabulary swept as one-token answers), where every
expectation is a sum over Y: the dynamics are exact, with no sampling noise.

The setting, stated once:

* policy ``π_θ(y) = π_0(y) exp(θ_y) / Z(θ)``, a softmax over Y with logits θ (θ = 0 at the start) around ``π_0``;
* objective ``J(θ) = E_π[r] − β KL(π_θ ‖ π_0)``; its gradient is ``∇J = π ⊙ (A − E_π[A])`` with ``A = r − β θ``
  (since ``log π/π_0 = θ − log Z``), and its maximiser is ``π* ∝ π_0 exp(r / β)`` (:func:`kl_optimum`);
* vanilla policy-gradient ascent ``θ ← θ + η ∇J(θ)``. An item's logit moves in proportion to its probability,
  so a policy spread over N items moves ~N times more slowly than one on a single item. The learning rate is
  therefore ``η = lr · N_eff(π_0)``, with ``N_eff = 1 / Σ π_0²`` the effective number of items, so that one step
  moves a typical item's logit by about ``lr`` times its advantage whatever the spread of ``π_0``;
* each step follows the gradient flow for a time η: Heun (second-order Runge-Kutta) sub-steps no longer than
  ``substep / L``, where L bounds the curvature of J at the current θ (:func:`curvature_bound`). A plain step of
  size η would overshoot once the policy concentrates; sub-steps keep the trajectory the flow's, which is what
  the theory describes. When η is already below the bound a step is one Heun step.

Accuracy is the probability that r orders a pair of distinct items as r* does, with the pair drawn from a
distribution over Y (uniform, or π_0 × π_0), computed exactly (:func:`pairwise_accuracy`); pairs that r* ties are
left out and pairs that r ties count one half. Reward variance is ``Var_{y~π_0}[r(y)]`` after each reward is
standardised over all of Y (:func:`standardise`): variance depends on scale, and a common scale is what makes
RMs comparable. Under a uniform π_0 every standardised reward has variance 1, by construction.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "standardise", "uniform_pi0", "concentrated_pi0", "effective_size", "reward_variance", "pairwise_accuracy",
    "sampled_accuracy", "policy", "objective", "gradient", "curvature_bound", "Trajectory", "ascend",
    "kl_optimum", "steps_to_gain", "teaching_table", "planted_teachers",
]


# --------------------------------------------------------------------------- rewards and initial policies

def standardise(x) -> np.ndarray:
    """(x − mean) / sd over all items (population sd): one scale for every RM, so variances compare."""
    a = np.asarray(x, dtype=float)
    if a.ndim != 1 or a.size < 2:
        raise ValueError(f"expected one score per item (a 1-d array of at least 2), got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{int((~np.isfinite(a)).sum())} scores are NaN or infinite; drop or fill those items first")
    sd = a.std()
    if sd == 0:
        raise ValueError("all scores are equal: a constant reward cannot be standardised (and teaches nothing)")
    return (a - a.mean()) / sd


def uniform_pi0(n: int) -> np.ndarray:
    return np.full(int(n), 1.0 / n)


def concentrated_pi0(n: int, items, mass: float) -> np.ndarray:
    """``mass`` spread evenly over ``items``, the rest evenly over all n items (so every item stays reachable)."""
    idx = np.unique(np.asarray(items, dtype=int))
    if idx.size == 0 or idx.min() < 0 or idx.max() >= n:
        raise ValueError(f"items must be a non-empty set of indices in [0, {n})")
    if not 0 < mass < 1:
        raise ValueError(f"mass={mass}: use a share strictly between 0 and 1 (π_0 must give every item some weight)")
    p = np.full(int(n), (1.0 - mass) / n)
    p[idx] += mass / idx.size
    return p


def _check_pi0(pi0, n: int | None = None) -> np.ndarray:
    p = np.asarray(pi0, dtype=float)
    if p.ndim != 1 or (n is not None and p.size != n):
        raise ValueError(f"π_0 must be one probability per item ({n} items), got shape {p.shape}")
    if not np.isfinite(p).all() or (p <= 0).any():
        raise ValueError("π_0 must be finite and strictly positive on every item (π_θ ∝ π_0·exp(θ) cannot reach an "
                         "item that π_0 excludes); mix in a little uniform mass")
    if abs(p.sum() - 1) > 1e-6:
        raise ValueError(f"π_0 sums to {p.sum():.6g}, not 1")
    return p / p.sum()


def effective_size(pi0) -> float:
    """N_eff = 1 / Σ π_0²: n for a uniform π_0, about k for one spread over k items."""
    p = _check_pi0(pi0)
    return float(1.0 / np.sum(p ** 2))


def reward_variance(rewards, pi0) -> np.ndarray:
    """Var_{y~π_0}[r(y)] for each row of ``rewards`` (models × items)."""
    r = np.atleast_2d(np.asarray(rewards, dtype=float))
    p = _check_pi0(pi0, r.shape[1])
    mean = r @ p
    return ((r - mean[:, None]) ** 2) @ p


# --------------------------------------------------------------------------- accuracy

def _signed_pairs(seq: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Σ_{i<j} w_i w_j sign(seq_j − seq_i) for each weight row, in O(n log² n): merge levels, one sort per level.

    At each level, a block's elements are compared with those of the block just before it; across the levels
    every pair i < j meets exactly once. ``seq`` holds integer ranks.
    """
    n = seq.size
    span = int(seq.max()) + 1
    total = np.zeros(w.shape[0])
    idx = np.arange(n)
    width = 1
    while width < n:
        block = idx // width
        pair, right = block // 2, block % 2 == 1
        left = ~right
        lkeys = pair[left] * span + seq[left]
        order = np.argsort(lkeys, kind="stable")
        keys = lkeys[order]
        cum = np.concatenate([np.zeros((w.shape[0], 1)), np.cumsum(w[:, left][:, order], axis=1)], axis=1)
        rkey = pair[right] * span + seq[right]
        start = np.searchsorted(keys, pair[right] * span, "left")
        end = np.searchsorted(keys, (pair[right] + 1) * span, "left")
        below = np.searchsorted(keys, rkey, "left")
        upto = np.searchsorted(keys, rkey, "right")
        less = cum[:, below] - cum[:, start]        # earlier elements with a smaller value
        more = cum[:, end] - cum[:, upto]           # earlier elements with a larger value
        total += np.sum(w[:, right] * (less - more), axis=1)
        width *= 2
    return total


def _tied_pair_weight(keys: list[np.ndarray], w: np.ndarray) -> np.ndarray:
    """Σ over unordered pairs i≠j that share every key of w_i w_j, for each weight row."""
    _, group = np.unique(np.stack(keys, axis=1), axis=0, return_inverse=True)
    s1 = np.stack([np.bincount(group.ravel(), weights=row) for row in w])
    s2 = np.stack([np.bincount(group.ravel(), weights=row ** 2) for row in w])
    return 0.5 * np.sum(s1 ** 2 - s2, axis=1)


def pairwise_accuracy(reward, truth, weights=None) -> np.ndarray | float:
    """P(r orders a pair as r* does), the pair's two distinct items drawn independently from ``weights``.

    ``weights``: None (uniform over items), one distribution over the items, or several (rows); exact, not
    sampled. Pairs that r* ties are left out; pairs that r ties (and r* does not) count one half.
    """
    r, s = np.asarray(reward, dtype=float), np.asarray(truth, dtype=float)
    if r.shape != s.shape or r.ndim != 1 or r.size < 2:
        raise ValueError(f"reward and truth must be 1-d of one length ≥ 2, got {r.shape} and {s.shape}")
    if not (np.isfinite(r).all() and np.isfinite(s).all()):
        raise ValueError("reward and truth must be finite")
    single = weights is None or np.ndim(weights) == 1
    w = np.ones((1, r.size)) if weights is None else np.atleast_2d(np.asarray(weights, dtype=float))
    if w.shape[1] != r.size or (w < 0).any():
        raise ValueError(f"weights must be non-negative, one per item ({r.size}), got shape {w.shape}")
    r_rank = np.unique(r, return_inverse=True)[1].ravel()
    s_rank = np.unique(s, return_inverse=True)[1].ravel()
    order = np.lexsort((r_rank, s_rank))               # by r*, then by r
    signed = _signed_pairs(r_rank[order], w[:, order])
    # pairs that share r* were counted as ordered above, with sign(r_j − r_i) ≥ 0: take them out again
    same_s = _tied_pair_weight([s_rank], w)
    same_both = _tied_pair_weight([s_rank, r_rank], w)
    signed -= same_s - same_both
    all_pairs = 0.5 * (w.sum(axis=1) ** 2 - (w ** 2).sum(axis=1))
    informative = all_pairs - same_s
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(informative > 0, 0.5 + 0.5 * signed / informative, np.nan)
    return float(acc[0]) if single else acc


def sampled_accuracy(reward, truth, pi0, n_pairs: int, seed: int = 0) -> float:
    """Monte Carlo version of :func:`pairwise_accuracy` under π_0 × π_0, as an RM benchmark would estimate it."""
    r, s = np.asarray(reward, dtype=float), np.asarray(truth, dtype=float)
    p = _check_pi0(pi0, r.size)
    rng = np.random.default_rng(seed)
    i, j = rng.choice(r.size, size=(2, int(n_pairs)), p=p)
    keep = (i != j) & (s[i] != s[j])
    if not keep.any():
        raise ValueError("no sampled pair has two items that r* orders; sample more pairs")
    agree = np.sign(r[i] - r[j])[keep] * np.sign(s[i] - s[j])[keep]
    return float(np.mean(0.5 + 0.5 * agree))


# --------------------------------------------------------------------------- the policy and its objective

def policy(theta, pi0) -> np.ndarray:
    """π_θ ∝ π_0 · exp(θ), row-wise for a matrix of logits."""
    logits = np.log(_check_pi0(pi0)) + np.asarray(theta, dtype=float)
    logits = logits - logits.max(axis=-1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=-1, keepdims=True)


def _kl(p: np.ndarray, theta: np.ndarray, log_p0: np.ndarray) -> np.ndarray:
    """KL(π_θ ‖ π_0) = E_π[θ] − log Z(θ), since log π/π_0 = θ − log Z; no log of a vanishing probability."""
    z = log_p0 + theta
    top = z.max(axis=-1)
    log_z = np.log(np.sum(np.exp(z - top[..., None]), axis=-1)) + top
    return np.sum(p * theta, axis=-1) - log_z


def objective(theta, reward, pi0, beta: float) -> np.ndarray | float:
    """J(θ) = E_π[r] − β KL(π_θ ‖ π_0)."""
    th = np.asarray(theta, dtype=float)
    p = policy(th, pi0)
    return np.sum(p * np.asarray(reward, dtype=float), axis=-1) - beta * _kl(p, th, np.log(_check_pi0(pi0)))


def _state(theta, reward, log_p0, beta):
    z = log_p0 + theta
    p = np.exp(z - z.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    adv = reward - beta * theta
    adv = adv - np.sum(p * adv, axis=-1, keepdims=True)
    return p, p * adv, adv


def gradient(theta, reward, pi0, beta: float) -> np.ndarray:
    """∇_θ J = π ⊙ (A − E_π[A]) with A = r − β θ: exact, a sum over all items."""
    th = np.asarray(theta, dtype=float)
    return _state(th, np.asarray(reward, dtype=float), np.log(_check_pi0(pi0)), beta)[1]


def curvature_bound(p: np.ndarray, adv: np.ndarray, beta: float) -> np.ndarray:
    """An upper bound on the spectral norm of J's Hessian at a policy p with centred advantages ``adv``.

    The Hessian is ``diag(π ⊙ (Â − β)) − π πᵀ ⊙ (Â_i + Â_j − β)``; bounding each part by its norm gives
    ``max π|Â − β| + β‖π‖² + 2 ‖π‖ ‖π ⊙ Â‖``.
    """
    sq = np.sum(p ** 2, axis=-1)
    return (np.max(p * np.abs(adv - beta), axis=-1) + beta * sq
            + 2 * np.sqrt(sq * np.sum((p * adv) ** 2, axis=-1)))


@dataclass
class Trajectory:
    """What :func:`ascend` recorded, one column per reward row and one row per step (step 0 is π_0)."""

    truth: np.ndarray          # E_π[r*]
    reward: np.ndarray         # E_π[r], the proxy being maximised
    kl: np.ndarray             # KL(π_θ ‖ π_0)
    objective: np.ndarray      # J(θ)
    substeps: np.ndarray       # Heun sub-steps each run needed in all
    eta: float                 # the learning rate, lr · N_eff(π_0)
    theta: np.ndarray          # final logits


def ascend(rewards, pi0, truth, *, beta: float, lr: float, steps: int, substep: float = 0.25) -> Trajectory:
    """KL-regularised policy-gradient ascent on each row of ``rewards`` from θ = 0, all rows at once.

    η = lr · N_eff(π_0); every step integrates the gradient flow over a time η with Heun sub-steps of at most
    ``substep / L`` (L from :func:`curvature_bound`). Returns E_π[r*], E_π[r], KL and J after every step.
    """
    r = np.atleast_2d(np.asarray(rewards, dtype=float))
    s = np.asarray(truth, dtype=float)
    p0 = _check_pi0(pi0, r.shape[1])
    if s.shape != (r.shape[1],) or not np.isfinite(s).all() or not np.isfinite(r).all():
        raise ValueError("rewards (models × items) and truth (items) must be finite and cover the same items")
    if beta < 0 or lr <= 0 or int(steps) < 1 or not 0 < substep <= 1:
        raise ValueError(f"need beta ≥ 0, lr > 0, steps ≥ 1 and 0 < substep ≤ 1 (got {beta}, {lr}, {steps}, "
                         f"{substep})")
    log_p0, eta = np.log(p0), lr / np.sum(p0 ** 2)
    theta = np.zeros_like(r)
    rec = {k: [] for k in ("truth", "reward", "kl", "objective")}
    n_sub = np.zeros(r.shape[0], dtype=int)

    def record(p):
        kl = _kl(p, theta, log_p0)
        rec["truth"].append(p @ s)
        rec["reward"].append(np.sum(p * r, axis=1))
        rec["kl"].append(kl)
        rec["objective"].append(rec["reward"][-1] - beta * kl)

    p, grad, adv = _state(theta, r, log_p0, beta)
    record(p)
    for _ in range(int(steps)):
        left = np.full(r.shape[0], eta)
        while (left > 0).any():
            h = np.minimum(left, substep / np.maximum(curvature_bound(p, adv, beta), 1e-300))
            done = h >= left
            h = np.where(done, left, h)
            _, grad2, _ = _state(theta + h[:, None] * grad, r, log_p0, beta)
            theta = theta + 0.5 * h[:, None] * (grad + grad2)
            n_sub += h > 0
            left = np.where(done, 0.0, left - h)
            p, grad, adv = _state(theta, r, log_p0, beta)
        record(p)
    out = {k: np.array(v) for k, v in rec.items()}
    return Trajectory(out["truth"], out["reward"], out["kl"], out["objective"], n_sub, float(eta), theta)


def kl_optimum(rewards, pi0, beta: float) -> np.ndarray:
    """π* ∝ π_0 exp(r / β): where KL-regularised ascent on r ends (for β > 0)."""
    if beta <= 0:
        raise ValueError("the KL-regularised optimum needs beta > 0")
    r = np.atleast_2d(np.asarray(rewards, dtype=float))
    return policy(r / beta, pi0)


def steps_to_gain(gain: np.ndarray, target: float) -> np.ndarray:
    """First step at which each column of ``gain`` (steps × runs) reaches ``target``; NaN if it never does."""
    g = np.atleast_2d(np.asarray(gain, dtype=float))
    hit = g >= target
    return np.where(hit.any(axis=0), hit.argmax(axis=0), np.nan).astype(float)


# --------------------------------------------------------------------------- many RMs, several π_0

def teaching_table(rewards: pd.DataFrame, truth, pi0s: dict, *, beta: float, lr: float, steps: int,
                   gain_steps: int, gain_target: float, substep: float = 0.25) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Accuracy, variance and teaching speed of every RM (a column of ``rewards``) under every π_0.

    ``rewards`` (items × models) and ``truth`` (items) are standardised over all items here, so gains are in
    standard deviations of r*. Returns ``(table, trajectories)``: one row per (pi0, model) with accuracy under
    uniform pairs and under π_0 × π_0, Var_π0[r], the largest standardised reward (``reward_max``: how far the
    RM's best response stands out), the initial rate dE[r*]/dstep, the gain in E[r*] after
    ``gain_steps`` steps (``gain_T``), the step at which the gain first reaches ``gain_target`` (NaN: not within
    ``steps``) and ``speed_to_target`` = 1 / that step (0 if never), the gain at the KL optimum (``eventual_gain``:
    where ascent on r ends), the Heun ``substeps`` the run took in all and ``objective_min_increase`` (the smallest
    step-to-step change of J: never negative for ascent that follows the flow); and the gain after every step, long.
    """
    if not isinstance(rewards, pd.DataFrame) or rewards.shape[1] < 1:
        raise ValueError("rewards must be a DataFrame with one column per reward model and one row per item")
    if not 1 <= int(gain_steps) <= int(steps):
        raise ValueError(f"gain_steps={gain_steps} must be between 1 and steps={steps}")
    if gain_target <= 0:
        raise ValueError(f"gain_target={gain_target} must be positive (a gain in standard deviations of r*)")
    models = list(rewards.columns)
    s = standardise(truth)
    R = np.stack([standardise(rewards[m].to_numpy()) for m in models])
    if s.size != R.shape[1]:
        raise ValueError(f"truth has {s.size} items, rewards {R.shape[1]}")
    names = list(pi0s)
    P = np.stack([_check_pi0(pi0s[k], s.size) for k in names])
    acc = np.stack([pairwise_accuracy(r, s, np.vstack([np.ones(s.size), P])) for r in R])  # models × (1 + π_0s)
    rows, traj = [], []
    for k, name in enumerate(names):
        p0 = P[k]
        t = ascend(R, p0, s, beta=beta, lr=lr, steps=steps, substep=substep)
        gain = t.truth - t.truth[0]
        to_target = steps_to_gain(gain, gain_target)
        eventual = kl_optimum(R, p0, beta) @ s - p0 @ s if beta > 0 else np.full(len(models), np.nan)
        slope = t.eta * ((p0 ** 2 * (s - p0 @ s)) @ (R - (R @ p0)[:, None]).T)
        variance = reward_variance(R, p0)
        for i, m in enumerate(models):
            rows.append({"pi0": name, "model": m, "accuracy_uniform": acc[i, 0], "accuracy_pi0": acc[i, k + 1],
                         "variance_pi0": variance[i], "reward_max": R[i].max(), "initial_rate": slope[i],
                         "gain_T": gain[gain_steps, i],
                         "proxy_gain_T": t.reward[gain_steps, i] - t.reward[0, i],
                         "steps_to_target": to_target[i],
                         "speed_to_target": 0.0 if np.isnan(to_target[i]) else 1.0 / to_target[i],
                         "eventual_gain": eventual[i], "eta": t.eta, "substeps": int(t.substeps[i]),
                         "objective_min_increase": float(np.diff(t.objective[:, i]).min())})
        traj.append(pd.DataFrame({"pi0": name, "model": np.repeat(models, len(gain)),
                                  "step": np.tile(np.arange(len(gain)), len(models)),
                                  "gain": gain.T.ravel(), "proxy_gain": (t.reward - t.reward[0]).T.ravel()}))
    return pd.DataFrame(rows), pd.concat(traj, ignore_index=True)


def planted_teachers(truth, support, *, flatten: float = 0.02, noise: float = 1.0, seed: int = 0) -> dict:
    """Two synthetic RMs for the claim's clean case (Razin et al.'s construction, on these items).

    ``accurate``: a strictly increasing function of r*, so its accuracy is 1 under any pair distribution, that
    is nearly flat (slope ``flatten``) over the band of r* values the items in ``support`` span: where a π_0
    concentrated on ``support`` puts its mass, it barely separates responses. ``noisy``: r* plus Gaussian noise of
    sd ``noise``, less accurate but with its full spread everywhere. Both standardised over all items.
    """
    s = standardise(truth)
    sup = np.asarray(support, dtype=int)
    lo, hi = s[sup].min(), s[sup].max()
    if hi <= lo:
        raise ValueError("the support's items must span more than one value of r*")
    accurate = np.where(s < lo, s, np.where(s > hi, lo + flatten * (hi - lo) + (s - hi), lo + flatten * (s - lo)))
    noisy = s + noise * np.random.default_rng(seed).standard_normal(s.size)
    return {"accurate": standardise(accurate), "noisy": standardise(noisy)}
