"""Tables as a reader sees them: top and bottom answers side by side, invisible characters made visible."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmlib.stats import require_columns, top_bottom

__all__ = ["show_whitespace", "top_bottom_table"]

_VISIBLE = {" ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍"}


def show_whitespace(text: str) -> str:
    """Make a token's invisible characters visible for tables: ' ' -> '␣', newline -> '⏎', tab -> '⇥', other
    non-printable characters -> their \\u escape, the empty string -> '∅'."""
    text = str(text)
    if text == "":
        return "∅"
    return "".join(_VISIBLE.get(ch, ch if ch.isprintable() else ascii(ch)[1:-1]) for ch in text)


def top_bottom_table(df: pd.DataFrame, label: str, value: str, k: int = 10, *, name: str | None = None,
                     whitespace: bool = False) -> pd.DataFrame:
    """The k highest and k lowest rows by ``value`` (:func:`rmlib.stats.top_bottom`), side by side.

    Columns: ``rank``, ``top <name>``, ``top <value>``, ``bottom <name>``, ``bottom <value>`` (``name`` defaults to
    ``label``; bottom rank 1 is the lowest value). Rows with no value are left out; ``whitespace=True`` shows the
    labels' invisible characters (tokens: ' love' as '␣love').
    """
    require_columns(df, [label, value], "top_bottom_table")
    d = df[[label, value]].dropna(subset=[value])
    tails = top_bottom(d, value, k)
    top, bottom = tails[tails["tail"] == "top"], tails[tails["tail"] == "bottom"]
    show = show_whitespace if whitespace else (lambda x: x)
    name = name or label
    return pd.DataFrame({"rank": np.arange(1, k + 1),
                         f"top {name}": [show(t) for t in top[label]], f"top {value}": top[value].to_numpy(),
                         f"bottom {name}": [show(t) for t in bottom[label]],
                         f"bottom {value}": bottom[value].to_numpy()})
