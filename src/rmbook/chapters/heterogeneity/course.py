"""Checks of the heterogeneity chapter's exercises: Kendall's τ-b on ties, and a noise floor by shuffling."""
from __future__ import annotations

import numpy as np
from scipy import stats

from rmbook.course.exercises import close, exercise, expect

# Planted score pairs: ties in one list, in both, none, and a reversal. τ-b differs from τ-a on every tied case.
TAU_CASES = {
    "ties in both lists": ([1, 2, 2, 3, 4, 4, 5], [1, 3, 2, 2, 5, 4, 4]),
    "ties in one list": ([1, 1, 1, 2, 2, 3], [1, 2, 3, 4, 5, 6]),
    "no ties": ([3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.0], [2.0, 7.0, 1.0, 8.0, 2.5, 8.5, 0.5]),
    "a reversal with ties": ([1, 2, 3, 3, 4], [5, 4, 3, 3, 1]),
}


def _tau_a(x, y) -> float:
    """Kendall's τ-a: (concordant − discordant) over all n(n−1)/2 pairs, ties counted as neither."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    i, j = np.triu_indices(len(x), 1)
    s = np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
    return float(s.sum() / len(s))


@exercise("heterogeneity.tau_b")
def check_tau_b(kendall_tau_b) -> int:
    """The student's ``kendall_tau_b(x, y)`` against scipy's τ-b on the planted cases."""
    for name, (x, y) in TAU_CASES.items():
        want = stats.kendalltau(x, y).statistic
        got = kendall_tau_b(list(x), list(y))
        if close(got, want):
            continue
        hint = ""
        if close(got, _tau_a(x, y)):
            hint = (" That is τ-a, which divides by all n(n−1)/2 pairs: for tied pairs use τ-b, which divides "
                    "C − D by √((n₀ − n₁)(n₀ − n₂)), where n₁ and n₂ count the pairs tied in x and in y.")
        elif close(got, -want):
            hint = " The sign is flipped: a pair is concordant when x and y move the same way."
        expect(False, f"τ is {float(np.asarray(got, float)):.3f} on {name} (x={list(x)}, y={list(y)}); τ-b is "
                      f"{want:.3f}.{hint}")
    return len(TAU_CASES)


@exercise("heterogeneity.noise_floor")
def check_noise_floor(shuffled_taus) -> int:
    """``shuffled_taus(x, y, n_shuffles, seed)`` must give τ of unrelated rankings: centred on 0, with the spread
    that theory gives for n items (sd ≈ √(2(2n + 5) / (9n(n − 1))))."""
    n, k = 300, 200
    x = np.random.default_rng(1).normal(size=n)
    taus = np.asarray(shuffled_taus(x, x.copy(), k, 0), dtype=float)
    expect(taus.shape == (k,), f"return one τ per shuffle: an array of shape ({k},), got shape {taus.shape}")
    if np.allclose(taus, taus[0]):
        expect(False, f"every shuffle gives τ = {taus[0]:.3f} for a list against itself: if both lists are "
                      "shuffled with the same permutation (or none), the pairs stay matched. Shuffle one list only.")
    sd = np.sqrt(2 * (2 * n + 5) / (9 * n * (n - 1)))
    expect(abs(taus.mean()) < 4 * sd / np.sqrt(k),
           f"the shuffled τ average {taus.mean():.3f}; unrelated rankings average 0 (± {4 * sd / np.sqrt(k):.3f} "
           f"for {k} shuffles). Shuffle the scores over the items, then compare.")
    expect(0.6 * sd < taus.std() < 1.5 * sd,
           f"the shuffled τ spread (sd {taus.std():.4f}) should be near {sd:.4f} for {n} items")
    again = np.asarray(shuffled_taus(x, x.copy(), k, 0), dtype=float)
    expect(np.array_equal(again, taus), "the same seed must give the same shuffles: use "
                                        "np.random.default_rng(seed)")
    return 4
