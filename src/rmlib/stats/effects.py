"""Effect sizes and distribution shape, each with a bootstrap confidence interval (``scipy.stats.bootstrap``).

With ~10^5 tokens every p-value is ~0, so the chapters report sizes with CIs instead.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy import special, stats

from rmlib.stats.columns import finite_array, require_columns
from rmlib.stats.ranking import top_bottom

__all__ = ["cohen_d", "hedges_g", "rank_biserial", "effect_size", "moments", "tail_asymmetry", "tail_comparison",
           "ci_verdict", "t_interval"]


def _auto_method(n: int) -> str:
    # BCa's jackknife costs O(n^2); beyond a few thousand values the percentile interval is close and affordable.
    return "BCa" if n <= 2000 else "percentile"


# --- effect sizes ---------------------------------------------------------------------------------------------------

def cohen_d(x, y, axis: int = -1) -> np.ndarray:
    """Standardised mean difference (x - y) / pooled SD (ddof=1). Vectorised along ``axis`` for the bootstrap."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    nx, ny = x.shape[axis], y.shape[axis]
    pooled = ((nx - 1) * x.var(axis=axis, ddof=1) + (ny - 1) * y.var(axis=axis, ddof=1)) / (nx + ny - 2)
    return (x.mean(axis=axis) - y.mean(axis=axis)) / np.sqrt(pooled)


def hedges_g(x, y, axis: int = -1) -> np.ndarray:
    """Cohen's d times the exact small-sample correction J(df) = Gamma(df/2) / (sqrt(df/2) Gamma((df-1)/2))."""
    df = np.asarray(x).shape[axis] + np.asarray(y).shape[axis] - 2
    j = np.exp(special.gammaln(df / 2) - special.gammaln((df - 1) / 2)) / np.sqrt(df / 2)
    return j * cohen_d(x, y, axis=axis)


def rank_biserial(x, y, axis: int = -1) -> np.ndarray:
    """2 U / (n_x n_y) - 1 from the Mann-Whitney U of x: +1 when every x exceeds every y, 0 at stochastic equality."""
    nx, ny = np.asarray(x).shape[axis], np.asarray(y).shape[axis]
    u = stats.mannwhitneyu(x, y, axis=axis, alternative="two-sided").statistic
    return 2 * u / (nx * ny) - 1


_EFFECTS = {"cohen_d": cohen_d, "hedges_g": hedges_g, "rank_biserial": rank_biserial,
            "mean_difference": lambda x, y, axis=-1: np.mean(x, axis=axis) - np.mean(y, axis=axis)}


def effect_size(x, y, kind: str = "hedges_g", *, confidence: float = 0.95, n_resamples: int = 2000,
                method: str | None = None, seed: int | None = 0) -> dict:
    """An effect size of x vs y with a bootstrap CI (x and y resampled independently).

    kind: ``hedges_g``, ``cohen_d``, ``rank_biserial`` or ``mean_difference``. Returns
    {kind, estimate, ci_low, ci_high, n_x, n_y}.
    """
    if kind not in _EFFECTS:
        raise ValueError(f"kind must be one of {sorted(_EFFECTS)}, got {kind!r}")
    x, y = finite_array(x, "x", 2), finite_array(y, "y", 2)
    fn = _EFFECTS[kind]
    est = float(fn(x, y))
    method = method or _auto_method(min(x.size, y.size))
    if np.ptp(np.r_[x, y]) == 0:
        lo = hi = est
    else:
        res = stats.bootstrap((x, y), fn, n_resamples=n_resamples, confidence_level=confidence, method=method,
                              vectorized=True, batch=200, rng=np.random.default_rng(seed))
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return {"kind": kind, "estimate": est, "ci_low": lo, "ci_high": hi, "n_x": x.size, "n_y": y.size}


# --- distribution shape ---------------------------------------------------------------------------------------------

_MOMENTS = {
    "mean": lambda a, axis=-1: np.mean(a, axis=axis),
    "variance": lambda a, axis=-1: np.var(a, axis=axis, ddof=1),
    "skewness": lambda a, axis=-1: stats.skew(a, axis=axis, bias=False),
    "kurtosis": lambda a, axis=-1: stats.kurtosis(a, axis=axis, bias=False),  # excess kurtosis: 0 for a normal
}


def moments(x, *, confidence: float = 0.95, n_resamples: int = 999, method: str | None = None,
            seed: int | None = 0) -> pd.DataFrame:
    """Mean, variance, skewness and excess kurtosis (bias-corrected) with bootstrap CIs.

    Returns columns moment, estimate, ci_low, ci_high, n. Skewness < 0 means a long low (pessimal) tail.
    """
    a = finite_array(x, "x", 4)
    method = method or _auto_method(a.size)
    batch = max(1, int(2e7 // a.size))  # bound memory at ~160 MB per batch
    # the four moments of each resample in one pass (#61): four bootstraps drew the same resamples four times
    res = stats.bootstrap((a,), _all_moments, n_resamples=n_resamples, confidence_level=confidence, method=method,
                          vectorized=True, batch=batch, rng=np.random.default_rng(seed))
    low, high = np.atleast_1d(res.confidence_interval.low), np.atleast_1d(res.confidence_interval.high)
    return pd.DataFrame([{"moment": name, "estimate": float(fn(a)), "ci_low": float(low[i]),
                          "ci_high": float(high[i]), "n": a.size} for i, (name, fn) in enumerate(_MOMENTS.items())])


def _all_moments(a, axis=-1):
    return np.stack([fn(a, axis=axis) for fn in _MOMENTS.values()])


def tail_asymmetry(x, q: float = 0.01, *, confidence: float = 0.95, n_resamples: int = 999,
                   seed: int | None = 0) -> dict:
    """(Q(1-q) - median) / (median - Q(q)): > 1 when the top tail reaches further from the median than the bottom.

    A quantile-based companion to skewness that is not dominated by a handful of extreme tokens.
    """
    if not 0 < q < 0.5:
        raise ValueError(f"q must be in (0, 0.5), got {q}")
    a = finite_array(x, "x", 10)

    def ratio(v, axis=-1):
        lo, med, hi = np.quantile(v, [q, 0.5, 1 - q], axis=axis)
        return (hi - med) / (med - lo)

    est = float(ratio(a))
    res = stats.bootstrap((a,), ratio, n_resamples=n_resamples, confidence_level=confidence, method="percentile",
                          vectorized=True, batch=max(1, int(2e7 // a.size)), rng=np.random.default_rng(seed))
    return {"q": q, "estimate": est, "ci_low": float(res.confidence_interval.low),
            "ci_high": float(res.confidence_interval.high), "n": a.size}


def tail_comparison(df: pd.DataFrame, features: Sequence[str], value: str = "reward", k: int = 100, *,
                    n_resamples: int = 2000, seed: int | None = 0) -> pd.DataFrame:
    """How do the top-k and bottom-k rows differ on each numeric or boolean feature (length, frequency, is_word...)?

    Returns per feature: top_mean, bottom_mean (a share for booleans), difference with a bootstrap CI, and the
    rank-biserial correlation (top vs bottom).
    """
    require_columns(df, [value, *features])
    tails = top_bottom(df, value, k)
    rows = []
    for f in features:
        if not (pd.api.types.is_numeric_dtype(df[f]) or pd.api.types.is_bool_dtype(df[f])):
            raise ValueError(f"feature {f!r} must be numeric or boolean; one-hot encode categories first")
        top = tails.loc[tails["tail"] == "top", f].astype(float).dropna()
        bot = tails.loc[tails["tail"] == "bottom", f].astype(float).dropna()
        diff = effect_size(top, bot, "mean_difference", n_resamples=n_resamples, method="percentile", seed=seed)
        rows.append({"feature": f, "k": k, "top_mean": top.mean(), "bottom_mean": bot.mean(),
                     "difference": diff["estimate"], "ci_low": diff["ci_low"], "ci_high": diff["ci_high"],
                     "rank_biserial": float(rank_biserial(top, bot))})
    return pd.DataFrame(rows)


def ci_verdict(df: pd.DataFrame, estimate: str, label: str = "model", lo: str | None = None,
               hi: str | None = None) -> dict[str, list[str]]:
    """Which rows have a CI wholly above zero, wholly below, or including zero: {'above': [...], 'below': [...],
    'zero': [...]} of ``label`` values (CI columns default to <estimate>_ci_low/_ci_high)."""
    lo, hi = lo or f"{estimate}_ci_low", hi or f"{estimate}_ci_high"
    require_columns(df, [label, estimate, lo, hi])
    return {"above": df.loc[df[lo] > 0, label].tolist(), "below": df.loc[df[hi] < 0, label].tolist(),
            "zero": df.loc[(df[lo] <= 0) & (df[hi] >= 0), label].tolist()}


def t_interval(mean, sd, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Student-t confidence interval of a mean from its summary (mean, SD, n; arrays or scalars): mean -/+
    t(n-1) * sd / sqrt(n). NaN where n < 2, since one replicate gives no spread; a missing SD counts as 0 there."""
    mean, sd, n = (np.asarray(v, dtype=float) for v in (mean, sd, n))
    t = stats.t.ppf(0.5 + confidence / 2, np.maximum(n - 1, 1))
    half = np.where(n > 1, t * np.nan_to_num(sd) / np.sqrt(n), np.nan)
    return mean - half, mean + half
