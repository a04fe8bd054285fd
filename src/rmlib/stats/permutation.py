"""Permutation tests over relabellings of a few units (models): exact where their number allows, and honest about
their error where it does not.

Why a module of its own: with 10 models there are 10! = 3,628,800 relabellings, few enough to enumerate, and a
Monte Carlo p from 9,999 of them carries an error of ±0.002 around 0.05, enough to move a verdict. Every test here
is two-sided unless a caller asks otherwise (:data:`ALTERNATIVE`, the book's one convention; see
:mod:`rmbook.analysis.claims.rules`).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

__all__ = ["EXACT_LIMIT", "ALTERNATIVE", "all_permutations", "label_permutation_p"]

EXACT_LIMIT = 10 ** 7  # label permutations enumerated exactly up to this many (10 models: 10! = 3,628,800)
ALTERNATIVE = "two-sided"  # the book's one convention for tests of a claim with a direction (see the claims rules)


def all_permutations(n: int) -> np.ndarray:
    """Every permutation of range(n), one per row (n! x n, the smallest integer type): built by inserting each
    next label at every position, in numpy, as itertools would take 10 s to list 10! tuples in Python."""
    if n < 1:
        raise ValueError(f"need n >= 1, got {n}")
    perms = np.zeros((1, 1), dtype=np.int8)
    for k in range(1, n):
        perms = np.concatenate([np.insert(perms, pos, k, axis=1) for pos in range(k + 1)])
    return perms


def label_permutation_p(n: int, statistic, observed: float, *, n_resamples: int, alternative: str,
                         seed: int | None, exact_limit: int = EXACT_LIMIT) -> dict:
    """The p-value of ``observed``, a statistic of the model labels' order (``statistic(perms)`` for a (batch, n)
    array of relabellings): over **all** n! relabellings when there are at most ``exact_limit`` of them, whatever
    ``n_resamples`` says, else from ``n_resamples`` random ones through ``scipy.stats.permutation_test``.

    Why exact: a Monte Carlo p carries an error of about sqrt(p(1 - p) / n_resamples), ±0.002 at p = 0.05 with 9,999
    resamples, enough to move a p across 0.05. The exact p counts the relabellings at least as extreme as the
    observed one (two-sided: twice the smaller tail, at most 1, scipy's convention), with scipy's relative tolerance
    for ties. When the test is not exact, ``p_se`` says how far it may be off (the claims rules call a part *not
    established* when p ± 2·SE straddles alpha). Returns p, exact, n_permutations (how many relabellings the p is
    over) and p_se (0 when exact)."""
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative must be 'two-sided', 'greater' or 'less', not {alternative!r}")
    total = math.factorial(n)
    if total > exact_limit:
        res = stats.permutation_test(
            (np.arange(n),), lambda perms, axis=-1: statistic(perms), permutation_type="pairings",
            vectorized=True, batch=20_000, n_resamples=n_resamples, alternative=alternative,
            rng=np.random.default_rng(seed))
        p = float(res.pvalue)
        return {"p": p, "exact": False, "n_permutations": int(n_resamples),
                "p_se": float(np.sqrt(p * (1 - p) / n_resamples))}
    perms, tol = all_permutations(n), abs(observed) * 1e-14 + 1e-14
    greater = less = 0
    for start in range(0, total, 100_000):
        null = statistic(perms[start:start + 100_000].astype(np.intp))
        greater += int(np.sum(null >= observed - tol))
        less += int(np.sum(null <= observed + tol))
    p = {"greater": greater / total, "less": less / total,
         "two-sided": min(1.0, 2 * min(greater, less) / total)}[alternative]
    return {"p": float(p), "exact": True, "n_permutations": int(total), "p_se": 0.0}
