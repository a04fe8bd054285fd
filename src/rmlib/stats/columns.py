"""Input checks shared by every statistic: the columns a function needs, finite arrays, names in formulas."""
from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd

__all__ = ["require_columns", "finite_array", "formula_name"]


def require_columns(df: pd.DataFrame, columns: Iterable[str], what: str = "df") -> None:
    """Raise a ValueError naming the missing columns, the ones present, and the argument to fix."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} lacks columns {missing} (has {list(df.columns)}); "
                         "rename them or pass the column names as keyword arguments")


def finite_array(x, name: str = "x", min_n: int = 2) -> np.ndarray:
    """1-D float array with no NaN/inf and at least ``min_n`` values, or a clear error."""
    arr = np.asarray(x, dtype=float).ravel()
    if np.isnan(arr).any() or np.isinf(arr).any():
        raise ValueError(f"{name} contains NaN or inf ({int((~np.isfinite(arr)).sum())} values); drop them first")
    if arr.size < min_n:
        raise ValueError(f"{name} needs at least {min_n} values, got {arr.size}")
    return arr


def formula_name(col: str) -> str:
    """A column name as a patsy/statsmodels formula term, whatever characters it holds: Q("col")."""
    return f'Q("{col}")'
