"""Bootstrap intervals of means that respect clusters: rows that share an item, a term or a word move together; and
the crossed bootstrap of a prompts × words table, where both are samples (:func:`crossed_bootstrap`), with the paired
difference of two such tables' draws (:func:`paired_difference`)."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from rmlib.stats.columns import require_columns

__all__ = ["MIN_CI_VALUES", "INTERVALS", "bootstrap_ci", "mean_ci", "cluster_mean_ci", "mean_with_ci", "crossed_bootstrap", "percentile_interval",
           "paired_difference", "MDC_Z", "crossed_indices", "kendall_draws", "shuffled_kendall"]

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



#: a minimum detectable change in standard errors: a two-sided 5% test with 80% power (1.96 + 0.84)
MDC_Z = 2.80


def crossed_bootstrap(values: np.ndarray, statistic, *, groups: Sequence | None = None, n_resamples: int = 999,
                      seed: int = 0) -> np.ndarray:
    """Draws of ``statistic`` over a prompts × words table resampled both ways at once: each draw takes the rows
    (prompts) with replacement and, independently, the columns (words) with replacement within each of ``groups``
    (one label per column; each group keeps its size). A number averaged over prompts of words drawn from a lexicon
    varies with both samples; resampling prompts alone (what scipy's bootstrap over one axis does) misses the words'
    share, which is the larger one for a few hundred words. Neither scipy nor arch resamples two crossed axes, hence
    this function.

    ``statistic(sample, labels)`` gets every draw at once, ``sample`` of shape (n_resamples, n_rows, n_cols) and the
    columns' group labels in the sample's order, and returns one value per draw. The same ``seed``, table shape and
    group sizes give the same indices, so draws of two tables of the same prompts and words are paired
    (:func:`paired_difference`)."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or 0 in values.shape:
        raise ValueError(f"crossed_bootstrap takes a non-empty 2-D table (prompts × words), got shape {values.shape}")
    labels = np.asarray(groups if groups is not None else np.zeros(values.shape[1], dtype=int))
    if len(labels) != values.shape[1]:
        raise ValueError(f"{len(labels)} group labels for {values.shape[1]} columns")
    rng = np.random.default_rng(seed)
    n_rows = values.shape[0]
    rows = rng.integers(0, n_rows, size=(n_resamples, n_rows))
    members = [np.flatnonzero(labels == g) for g in pd.unique(labels)]
    cols = np.concatenate([m[rng.integers(0, len(m), size=(n_resamples, len(m)))] for m in members], axis=1)
    sample = values[rows[:, :, None], cols[:, None, :]]
    return np.asarray(statistic(sample, np.concatenate([labels[m] for m in members])), dtype=float)


def percentile_interval(draws: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile interval of bootstrap ``draws``."""
    q = (1 - confidence) / 2
    lo, hi = np.quantile(np.asarray(draws, dtype=float), [q, 1 - q])
    return float(lo), float(hi)


def paired_difference(draws_a, draws_b, confidence: float = 0.95) -> dict:
    """The change from ``a`` to ``b`` judged on paired bootstrap draws (the same resampled prompts and words for
    both, :func:`crossed_bootstrap` with one seed): ci_low, ci_high (percentile interval of b − a), se (the draws'
    standard deviation) and mdc, the minimum detectable change (:data:`MDC_Z` standard errors: a change this large
    is found 80% of the time by a two-sided 5% test)."""
    a, b = np.asarray(draws_a, dtype=float), np.asarray(draws_b, dtype=float)
    if a.shape != b.shape or a.size < 2:
        raise ValueError(f"paired draws must have one shape with at least two draws, got {a.shape} and {b.shape}")
    d = b - a
    lo, hi = percentile_interval(d, confidence)
    se = float(d.std(ddof=1))
    return {"ci_low": lo, "ci_high": hi, "se": se, "mdc": MDC_Z * se}


def crossed_indices(n_rows: int, n_cols: int, n_resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The row and column indices of :func:`crossed_bootstrap` with one group: (n_resamples, n_rows) and
    (n_resamples, n_cols), drawn in the same order, so a statistic that cannot take the stacked sample (Kendall's τ,
    :func:`kendall_draws`) is paired with the others."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_rows, size=(n_resamples, n_rows)), rng.integers(0, n_cols, size=(n_resamples, n_cols))


def _signs(values: np.ndarray) -> np.ndarray:
    """sign(v_j − v_i) over the last axis: (..., n) -> (..., n, n), as float32 for the quadratic forms."""
    return np.sign(values[..., None, :] - values[..., :, None]).astype(np.float32)


def _quadratic(counts: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """c^T M_r c for each row c of ``counts`` (k, n) and each slice of ``matrix`` (n, n, r): (k, r), by one matrix
    product."""
    n = counts.shape[1]
    x = (counts @ matrix.reshape(n, -1)).reshape(len(counts), n, -1)
    return np.einsum("knr,kn->kr", x, counts)


def _tau_b(counts: np.ndarray, sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
    """Kendall's τ-b of one prompt's words for each vector of word multiplicities in ``counts`` (k, n): ``sa`` (n,
    n) and ``sb`` (n, n, r) the pairs' signs. Two copies of a word are a pair tied in both, which τ-b leaves out of
    its numerator and both denominators; every other pair counts once per copy."""
    da = _quadratic(counts, np.abs(sa)[:, :, None])
    num = _quadratic(counts, sa[:, :, None] * sb)
    db = _quadratic(counts, np.abs(sb))
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / np.sqrt(da * db)


def kendall_draws(a: np.ndarray, b: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Kendall's τ-b between ``a`` (prompts × words) and each of ``b``'s columns (prompts × words × references),
    within each prompt and averaged over the prompts, on each crossed resample (``rows``, ``cols``:
    :func:`crossed_indices`): (n_resamples, references). pandas and scipy compute τ on one sample at a time; this
    takes every resample's word multiplicities as weights of one quadratic form per prompt, exact τ-b with the
    copies a resample draws."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n_rows, n_cols = a.shape
    counts = np.stack([np.bincount(c, minlength=n_cols) for c in cols]).astype(np.float32)
    weights = np.stack([np.bincount(r, minlength=n_rows) for r in rows]).astype(float) / n_rows
    out = np.zeros((len(rows), b.shape[2]))
    for p in range(n_rows):
        out += weights[:, p, None] * _tau_b(counts, _signs(a[p]), _signs(np.moveaxis(b[p], -1, 0)).transpose(1, 2, 0))
    return out


def shuffled_kendall(a: np.ndarray, b: np.ndarray, n_shuffles: int, seed: int) -> np.ndarray:
    """Kendall's τ-b between ``a`` (prompts × words) with its words shuffled, one shuffle for every prompt, and each
    of ``b``'s references (prompts × words × references), averaged over the prompts: (n_shuffles, references). A
    shuffle moves pairs, not ties, so each prompt's denominators are computed once."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    rng = np.random.default_rng(seed)
    n = a.shape[1]
    sa = [_signs(a[p]) for p in range(len(a))]
    sb = [_signs(np.moveaxis(b[p], -1, 0)).transpose(1, 2, 0).reshape(n * n, -1) for p in range(len(a))]
    denominators = [np.sqrt(np.abs(sa[p]).sum() * np.abs(sb[p]).sum(axis=0)) for p in range(len(a))]
    orders = np.stack([rng.permutation(n) for _ in range(n_shuffles)])
    out = np.zeros((n_shuffles, b.shape[2]))
    for p in range(len(a)):
        moved = sa[p][orders[:, :, None], orders[:, None, :]].reshape(n_shuffles, -1)
        out += moved @ sb[p] / denominators[p] / len(a)
    return out
