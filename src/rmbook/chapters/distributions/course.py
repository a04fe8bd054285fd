"""Checks of the distributions chapter's exercises: the sample skewness (adjusted Fisher-Pearson, as
:func:`rmlib.stats.moments` reports it), and a percentile bootstrap CI of it."""
from __future__ import annotations

import numpy as np
from scipy import stats

from rmbook.course.exercises import close, exercise, expect

# Planted score lists: a long high tail, a long low tail, a symmetric one, and a small sample, where the biased and
# the adjusted estimators differ most.
SKEW_CASES = {
    "a long high tail": [0.1, 0.2, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0, 1.6, 3.5],
    "a long low tail": [-6.0, -2.5, -1.0, -0.4, 0.0, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9],
    "a symmetric list": [-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0],
    "five values": [1.0, 2.0, 2.0, 3.0, 9.0],
}


def _variants(x: np.ndarray) -> list[tuple[float, str]]:
    """The common wrong estimators of skewness, each with the hint that names it."""
    n, d = len(x), x - x.mean()
    m2, m3 = np.mean(d ** 2), np.mean(d ** 3)
    s, adjust = x.std(ddof=1), np.sqrt(n * (n - 1)) / (n - 2)
    variance = ("You divided by the variance, not by SD³ (the variance to the power 1.5): skewness must not change "
                "when the scores are rescaled.")
    return [
        (m3 / m2 ** 1.5, "That is the biased (population) skewness g₁ = m₃ / m₂^1.5, scipy's skew(bias=True). "
                         "The chapter uses the adjusted Fisher-Pearson G₁ = g₁ · √(n(n − 1)) / (n − 2) "
                         "(scipy's skew(bias=False)), which corrects g₁'s bias on small samples."),
        (m3 / s ** 3, "That is m₃ / s³ with s the sample SD (ddof=1), a third estimator. Use the adjusted "
                      "Fisher-Pearson G₁ = g₁ · √(n(n − 1)) / (n − 2), with g₁ = m₃ / m₂^1.5 from the biased "
                      "central moments."),
        (m3 / m2 * adjust, variance), (m3 / m2, variance), (m3 / s ** 2, variance),
    ]


@exercise("distributions.skewness")
def check_skewness(skewness) -> int:
    """The student's ``skewness(x)`` against scipy's adjusted Fisher-Pearson G₁ on the planted lists, and on a
    rescaled list (skewness is scale-free)."""
    for name, xs in SKEW_CASES.items():
        x = np.asarray(xs, dtype=float)
        want = float(stats.skew(x, bias=False))
        got = skewness(x.copy())
        if close(got, want):
            continue
        hint = ""
        if abs(want) > 1e-9 and close(got, -want):
            hint = (" The sign is flipped: skewness is positive when the high tail is the long one (the mean of "
                    "(x − mean)³ is > 0).")
        else:
            hint = next((" " + h for v, h in _variants(x) if close(got, v)), "")
        expect(False, f"skewness is {float(np.asarray(got, float)):.4f} on {name} ({xs}); the adjusted "
                      f"Fisher-Pearson skewness is {want:.4f}.{hint}")
    x = np.asarray(SKEW_CASES["a long high tail"]) * 40.0 + 7.0
    got = skewness(x)
    expect(close(got, stats.skew(x, bias=False)),
           f"on the same list times 40 plus 7 your skewness is {float(np.asarray(got, float)):.4f}, not "
           f"{stats.skew(x, bias=False):.4f}: skewness is scale-free, so divide m₃ by SD³, not by the variance.")
    return len(SKEW_CASES) + 1


def _planted_sample(n: int = 300) -> np.ndarray:
    return np.random.default_rng(3).lognormal(0.0, 0.6, size=n)  # a skewed bootstrap distribution


def _reference_ends(x: np.ndarray) -> tuple[np.ndarray, float]:
    """The bootstrap distribution of G₁ (many resamples) and the sample's own G₁."""
    rng = np.random.default_rng(12345)
    idx = rng.integers(0, len(x), size=(20000, len(x)))
    return stats.skew(x[idx], axis=1, bias=False), float(stats.skew(x, bias=False))


@exercise("distributions.bootstrap_ci")
def check_bootstrap_ci(bootstrap_ci) -> int:
    """``bootstrap_ci(x, n_resamples, seed)`` must give the (low, high) 95% percentile interval of the skewness
    over resamples drawn with replacement, the same for the same seed."""
    x = _planted_sample()
    boot, est = _reference_ends(x)
    lo_want, hi_want = np.quantile(boot, [0.025, 0.975])
    width = hi_want - lo_want
    got = bootstrap_ci(x.copy(), 5000, 0)
    try:
        lo, hi = (float(v) for v in got)
    except (TypeError, ValueError):
        expect(False, f"return the interval as two numbers (low, high), got {got!r}")
    expect(lo <= hi, f"the interval ({lo:.3f}, {hi:.3f}) has low > high: return (low, high)")
    if hi - lo < 1e-9 * max(1.0, abs(est)):
        expect(False, f"the interval ({lo:.4f}, {hi:.4f}) has zero width: every resample has the same skewness. "
                      "Drawing n values without replacement only reorders the sample; a bootstrap resample draws "
                      "n values *with* replacement (rng.choice(x, size=n, replace=True), or rng.integers).")
    tol = 0.03 * width  # an end's Monte Carlo error over 5000 resamples: ~1% of the width (≤ 1.7% in 30 seeds)
    if not (abs(lo - lo_want) < tol and abs(hi - hi_want) < tol):
        hint = ""
        lo90, hi90 = np.quantile(boot, [0.05, 0.95])
        if abs(lo - lo90) < tol and abs(hi - hi90) < tol:
            hint = (" That is a 90% interval (the 5% and 95% quantiles): a 95% interval runs from the 2.5% to the "
                    "97.5% quantile.")
        elif abs(hi - np.quantile(boot, 0.00975)) < tol:  # the 0.975th percentile, i.e. the 0.975% quantile
            hint = (" Both ends are near the lowest resampled skewness: np.percentile takes percents (2.5, "
                    "97.5), np.quantile takes fractions (0.025, 0.975).")
        elif abs(lo - (2 * est - hi_want)) < tol and abs(hi - (2 * est - lo_want)) < tol:
            hint = (" That is the basic (reflected) interval 2θ̂ − q: the percentile interval is the quantiles of "
                    "the resampled skewness themselves.")
        elif not lo < est < hi:
            hint = (f" The interval should contain the sample's own skewness ({est:.3f}): bootstrap the skewness "
                    "(scipy.stats.skew(..., bias=False) or your function from Exercise 1) of each resample.")
        expect(False, f"on a planted lognormal sample of {len(x)} values (skewness {est:.3f}) your interval is "
                      f"({lo:.3f}, {hi:.3f}); the 95% percentile interval is about ({lo_want:.3f}, {hi_want:.3f}) "
                      f"(± {tol:.3f} for 5000 resamples).{hint}")
    again = tuple(float(v) for v in bootstrap_ci(x.copy(), 5000, 0))
    expect(again == (lo, hi), "the same seed must give the same interval: draw the resamples from "
                              "np.random.default_rng(seed), not from an unseeded generator")
    other = tuple(float(v) for v in bootstrap_ci(x.copy(), 5000, 1))
    expect(other != (lo, hi), "seed 1 gives exactly the interval of seed 0: use the seed "
                              "(np.random.default_rng(seed))")
    return 4
