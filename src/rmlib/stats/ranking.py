"""Ranks within groups: the top and bottom rows, percentile ranks and standardised rewards; and how far several
rankings of the same objects agree (Kendall's W).

RMs' scales are arbitrary, so the chapters compare models through ranks or z-scores within each model x prompt.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from rmlib.stats.columns import require_columns

__all__ = ["top_bottom", "percentile_ranks", "standardise", "kendall_w"]


def top_bottom(df: pd.DataFrame, value: str = "reward", k: int = 20, by: Sequence[str] = ()) -> pd.DataFrame:
    """The k highest- and k lowest-scoring rows (per group in ``by``), with columns ``tail`` and ``tail_rank``.

    tail_rank 1 is the single best row in the top tail and the single worst in the bottom tail.
    """
    require_columns(df, [value, *by])
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if df[value].isna().any():
        raise ValueError(f"column {value!r} has NaN scores; drop them first")
    groups = df.groupby(list(by), sort=False) if by else [(None, df)]
    parts = []
    for _, g in groups:
        if len(g) < 2 * k:
            raise ValueError(f"a group has {len(g)} rows, fewer than 2k = {2 * k}; lower k")
        top = g.nlargest(k, value).assign(tail="top", tail_rank=np.arange(1, k + 1))
        bottom = g.nsmallest(k, value).assign(tail="bottom", tail_rank=np.arange(1, k + 1))
        parts += [top, bottom]
    return pd.concat(parts)


def percentile_ranks(df: pd.DataFrame, value: str = "reward", by: Sequence[str] = ("model", "prompt_key"),
                     item: str = "item") -> pd.Series:
    """Percentile of each row's value within its group, 100 = top (the RM's favourite), 0 = bottom."""
    require_columns(df, [value, item, *by])
    return df.groupby(list(by), sort=False)[value].rank(pct=True, method="average") * 100.0


def standardise(df: pd.DataFrame, value: str = "reward", by: Sequence[str] = ("model", "prompt_key"),
                method: str = "z") -> pd.Series:
    """Scores made comparable across RMs and prompts: a z-score (``'z'``) or a percentile rank 0..100 (``'rank'``,
    100 = highest) within each group. RMs' scales are arbitrary, so slopes are read in these units."""
    require_columns(df, [value, *by])
    g = df.groupby(list(by), sort=False)[value]
    if method == "z":
        sd = g.transform("std")
        if (sd == 0).any():
            raise ValueError(f"{value!r} is constant within some {list(by)} group; cannot standardise")
        return (df[value] - g.transform("mean")) / sd
    if method == "rank":
        return (g.rank(pct=True, method="average") * 100.0).rename(value)
    raise ValueError(f"method must be 'z' or 'rank', not {method!r}")


def kendall_w(ranks: np.ndarray) -> float:
    """Kendall's W for an (m raters x n objects) array of ranks (1 = first; ties as average ranks), with the
    standard tie correction: W = Friedman's chi-squared / (m (n - 1)) (scipy has the Friedman test, not W, which the
    fine-tuning chapter reports). 1 = complete agreement; 0 = none. NaN with fewer than 2 raters or objects, or when
    every rater ties every object."""
    r = np.asarray(ranks, float)
    if r.ndim != 2:
        raise ValueError(f"ranks must be 2-D (raters x objects), got shape {r.shape}")
    m, n = r.shape
    if m < 2 or n < 2:
        return float("nan")
    if np.isnan(r).any():
        raise ValueError("ranks contain NaN: every rater must rank every object")
    s = ((r.sum(axis=0) - m * (n + 1) / 2) ** 2).sum()
    ties = 0.0
    for row in r:
        _, counts = np.unique(row, return_counts=True)
        ties += (counts ** 3 - counts).sum()
    denom = m ** 2 * (n ** 3 - n) - m * ties
    return float(12 * s / denom) if denom > 0 else float("nan")
