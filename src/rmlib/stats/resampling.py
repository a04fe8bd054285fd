"""Bootstrap intervals of means that respect clusters: rows that share an item, a term or a word move together."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from rmlib.stats.columns import require_columns

__all__ = ["MIN_CI_VALUES", "cluster_mean_ci", "mean_with_ci"]

#: the fewest values (or clusters) a bootstrap interval is drawn from; with fewer, the interval is NaN
MIN_CI_VALUES = 3


def cluster_mean_ci(values: np.ndarray, clusters: np.ndarray | None, confidence: float, n_resamples: int,
                    seed: int | None) -> tuple[float, float]:
    """Percentile bootstrap CI of a mean, resampling whole clusters when ``clusters`` is given.

    A resampled data set takes clusters with replacement and keeps all rows of each, so the mean is
    sum(cluster sums) / sum(cluster sizes): rows that share a cluster (an item under three prompts) move together.
    """
    if clusters is None:
        ci = stats.bootstrap((values,), np.mean, n_resamples=n_resamples, confidence_level=confidence,
                             method="percentile", rng=np.random.default_rng(seed)).confidence_interval
        return float(ci.low), float(ci.high)
    codes, _ = pd.factorize(clusters)
    sums = np.bincount(codes, weights=values)
    sizes = np.bincount(codes).astype(float)
    if sums.size < MIN_CI_VALUES:
        return np.nan, np.nan
    ci = stats.bootstrap((sums, sizes), lambda s, c, axis=-1: s.sum(axis=axis) / c.sum(axis=axis), paired=True,
                         vectorized=True, n_resamples=n_resamples, confidence_level=confidence,
                         method="percentile", rng=np.random.default_rng(seed)).confidence_interval
    return float(ci.low), float(ci.high)


def mean_with_ci(df: pd.DataFrame, value: str, by: Sequence[str], cluster: str | None = None,
                 confidence: float = 0.95, n_resamples: int = 999, seed: int = 0) -> pd.DataFrame:
    """Mean of ``value`` per group with a percentile bootstrap CI (scipy.stats.bootstrap).

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
        row = {**dict(zip(by, key)), "mean": float(v.mean()) if v.size else np.nan, "n": int(v.size)}
        if v.size >= MIN_CI_VALUES and np.ptp(v) > 0:
            ci = stats.bootstrap((v,), np.mean, n_resamples=n_resamples, confidence_level=confidence,
                                 method="percentile", rng=np.random.default_rng(seed)).confidence_interval
            row.update(ci_low=float(ci.low), ci_high=float(ci.high))
        else:
            row.update(ci_low=np.nan, ci_high=np.nan)
        rows.append(row)
    return pd.DataFrame(rows)

