"""Ranks within groups: the top and bottom rows, percentile ranks and standardised rewards.

RMs' scales are arbitrary, so the chapters compare models through ranks or z-scores within each model x prompt.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from rmlib.stats.columns import require_columns

__all__ = ["top_bottom", "percentile_ranks", "standardise"]


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

