"""The building blocks of the chapters' compact tables: a chapter's widest result tables as a reader reads them, a
few named columns with each pair of related numbers in one cell ("12 (8.3)", "1.45 [0.60, 2.10]"), so that a table
fits the text column at 1280 px and no column scrolls out of sight (#43 item 3: these ran 40 to 600 px past it).
Each chapter's own views are in its folder's ``tables.py`` (:mod:`rmbook.chapters`); only the display changes: the
analyses return, and the results files keep, every column."""
from __future__ import annotations

import pandas as pd

from rmbook.report.tables import MISSING, _missing as _one_missing, number_text, p_text

__all__ = ["MISSING", "any_missing", "cells", "interval", "number_text", "p_text", "versus", "with_extra"]


def any_missing(*values) -> bool:
    """Whether any of ``values`` is missing (None, NaN, pd.NA)."""
    return any(_one_missing(v) for v in values)


def with_extra(value, extra, fmt=number_text, extra_fmt=None) -> str:
    """``value (extra)``, or ``—`` when ``value`` is missing (and ``value`` alone when only ``extra`` is)."""
    if any_missing(value):
        return MISSING
    return fmt(value) if any_missing(extra) else f"{fmt(value)} ({(extra_fmt or fmt)(extra)})"


def interval(value, low, high, fmt=number_text) -> str:
    """``value [low, high]``, or ``—`` when any of the three is missing."""
    return MISSING if any_missing(value, low, high) else f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


def versus(a, b, fmt=number_text) -> str:
    """``a vs b``, or ``—`` when either is missing."""
    return MISSING if any_missing(a, b) else f"{fmt(a)} vs {fmt(b)}"


def cells(df: pd.DataFrame, fn, *columns) -> list[str]:
    """``fn`` applied to each row's ``columns`` (a column the table lacks is missing in every row)."""
    cols = [df[c] if c in df else pd.Series([None] * len(df), index=df.index) for c in columns]
    return [fn(*values) for values in zip(*cols)]
