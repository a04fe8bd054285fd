"""Bootstrap intervals of means that respect clusters: rows that share an item, a term or a word move together."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from rmlib.stats.columns import require_columns

__all__ = ["MIN_CI_VALUES", "INTERVALS", "bootstrap_ci", "mean_ci", "cluster_mean_ci", "mean_with_ci"]

#: the fewest values (or clusters) a bootstrap interval is drawn from; with fewer, the interval is NaN
MIN_CI_VALUES = 3
#: the intervals a mean can have (:func:`mean_ci`): Student t (the default), or the percentile bootstrap
INTERVALS = ("t", "bootstrap")


def bootstrap_ci(samples: tuple, statistic, *, confidence: float = 0.95, n_resamples: int = 999,
                 seed: int | None = 0, paired: bool = False, vectorized: bool | None = None) -> tuple[float, float]:
    """The percentile bootstrap interval of ``statistic`` over ``samples`` (scipy.stats.bootstrap; a tuple of
    arrays, resampled together when ``paired``): the one bootstrap interval of the library and the book, seeded
    (``seed``) so a run is repeatable. It suits many units (hundreds of pairs, items or words). At a few units it
    under-covers: it resamples the sample itself, whose spread is (n − 1)/n of the population's and whose tails stop
    at the sample's extremes; so the interval of a mean over a few units is :func:`mean_ci`'s t interval instead."""
    ci = stats.bootstrap(samples, statistic, n_resamples=n_resamples, confidence_level=confidence,
                         method="percentile", rng=np.random.default_rng(seed), paired=paired,
                         vectorized=vectorized).confidence_interval
    return float(ci.low), float(ci.high)


def mean_ci(values, confidence: float = 0.95, *, interval: str = "t", n_resamples: int = 999,
            seed: int | None = 0) -> tuple[float, float]:
    """The interval of the mean of ``values`` (NaN with fewer than :data:`MIN_CI_VALUES` or with no spread).

    ``interval="t"`` (the default): Student's t interval, mean ± t(n − 1) · sd / √n. It holds at n = 10, where the
    book's means are over ten RMs: exact for normal values, close for others, and it widens as n shrinks, as an
    interval from a few units must. The percentile bootstrap (the former default) and BCa (scipy's
    ``method='BCa'``, which corrects bias and skew) are both too narrow there: both resample the ten values
    themselves. On the identity-terms chapter's 31 items (each a mean over the ten RMs) the percentile bootstrap
    left 13 items clearly below the gap expected at their human rank, BCa 14, the t interval 11 (#63 item 7).

    ``interval="bootstrap"``: :func:`bootstrap_ci` of the mean, for values on a bounded scale at many units (an
    accuracy over hundreds of pairs), whose interval must stay within the values' range."""
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {INTERVALS}, got {interval!r}")
    v = np.asarray(values, dtype=float)
    if v.size < MIN_CI_VALUES or np.ptp(v) == 0:
        return np.nan, np.nan
    if interval == "bootstrap":
        return bootstrap_ci((v,), np.mean, confidence=confidence, n_resamples=n_resamples, seed=seed)
    half = stats.t.ppf(0.5 + confidence / 2, v.size - 1) * v.std(ddof=1) / np.sqrt(v.size)
    return float(v.mean() - half), float(v.mean() + half)


def cluster_mean_ci(values: np.ndarray, clusters: np.ndarray | None, confidence: float, n_resamples: int,
                    seed: int | None) -> tuple[float, float]:
    """Percentile bootstrap CI of a mean (:func:`bootstrap_ci`), resampling whole clusters when ``clusters`` is given.

    A resampled data set takes clusters with replacement and keeps all rows of each, so the mean is
    sum(cluster sums) / sum(cluster sizes): rows that share a cluster (an item under three prompts) move together.
    The chapters that use it resample hundreds of clusters (items), where the percentile interval holds.
    """
    if clusters is None:
        return bootstrap_ci((values,), np.mean, confidence=confidence, n_resamples=n_resamples, seed=seed)
    codes, _ = pd.factorize(clusters)
    sums = np.bincount(codes, weights=values)
    sizes = np.bincount(codes).astype(float)
    if sums.size < MIN_CI_VALUES:
        return np.nan, np.nan
    return bootstrap_ci((sums, sizes), lambda s, c, axis=-1: s.sum(axis=axis) / c.sum(axis=axis), paired=True,
                        vectorized=True, confidence=confidence, n_resamples=n_resamples, seed=seed)


def mean_with_ci(df: pd.DataFrame, value: str, by: Sequence[str], cluster: str | None = None,
                 confidence: float = 0.95, n_resamples: int = 999, seed: int = 0, interval: str = "t") -> pd.DataFrame:
    """Mean of ``value`` per group with its interval (:func:`mean_ci`: Student t by default, which holds over a few
    units such as ten RMs; ``interval="bootstrap"`` for the percentile bootstrap, with ``n_resamples`` and ``seed``).

    With ``cluster`` (e.g. the term), values are first averaged per cluster, so a term that appears under three
    prompts or as four tokens counts once: the CI is over terms, not over repeated rows. Returns *by, mean, ci_low,
    ci_high, n (clusters).
    """
    by = list(by)
    require_columns(df, [value, *by, *([cluster] if cluster else [])])
    data = df.groupby(by + [cluster], sort=False, as_index=False)[value].mean() if cluster else df
    rows = []
    for key, g in data.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        v = g[value].dropna().to_numpy(float)
        lo, hi = mean_ci(v, confidence, interval=interval, n_resamples=n_resamples, seed=seed)
        rows.append({**dict(zip(by, key)), "mean": float(v.mean()) if v.size else np.nan, "n": int(v.size),
                     "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)

