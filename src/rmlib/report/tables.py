"""Tables as a reader sees them: top and bottom answers side by side, invisible characters made visible, long tables
in a scrollable box without pandas' meaningless 0..n-1 index (:func:`table_html`, installed for every DataFrame of a
chapter by :func:`rmlib.report.setup_page`)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmlib.data.tokens import show_whitespace
from rmlib.report.masking import mask_frame, slurs_shown
from rmlib.stats import require_columns, top_bottom

__all__ = ["show_whitespace", "top_bottom_table", "top_bottom_panels", "table_html", "gcg_extremes_table",
           "MAX_ROWS_SHOWN"]

MAX_ROWS_SHOWN = 15   # a longer table scrolls inside a box of about this height

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


def top_bottom_panels(df: pd.DataFrame, label: str, models, k: int = 10):
    """One collapsible panel per model with its :func:`top_bottom_table` (an ipywidgets Accordion), slurs masked
    unless the page shows them (:mod:`rmlib.report.masking`)."""
    import ipywidgets as widgets

    def shown(table: pd.DataFrame) -> pd.DataFrame:
        return table if slurs_shown() else mask_frame(table)

    panels = [widgets.HTML(shown(top_bottom_table(df, label, m, k=k)).to_html(index=False)) for m in models]
    acc = widgets.Accordion(children=panels)
    for i, m in enumerate(models):
        acc.set_title(i, m)
    return acc


def _meaningless_index(index: pd.Index) -> bool:
    """An index a reader learns nothing from: unnamed row numbers, whether 0..n-1 or what is left of them after a
    filter (a table of 9 rows numbered 12, 40, 41, ... reads as a column of data)."""
    if index.name is not None or isinstance(index, pd.MultiIndex):
        return False
    return isinstance(index, pd.RangeIndex) or pd.api.types.is_integer_dtype(index.dtype)


def table_html(df: pd.DataFrame, *, max_rows: int = MAX_ROWS_SHOWN) -> str:
    """``df`` as HTML for a page: without a default 0..n-1 index, every row kept, always inside a box that scrolls
    sideways when the table is wider than the page (a 17-column table would otherwise be cut off at the right), and
    that scrolls down when it has more than about ``max_rows`` rows (the row count is said above it)."""
    html = df.to_html(index=not _meaningless_index(df.index), max_rows=None, max_cols=None, border=0,
                      classes="dataframe rmlib-table")
    if len(df) <= max_rows:
        return f'<div class="rmlib-scroll" style="max-width: 100%; overflow-x: auto;">{html}</div>'
    height = f"{1.9 * (max_rows + 1):.0f}em"
    return (f'<div class="rmlib-table-note">{len(df):,} rows (scroll)</div>'
            f'<div class="rmlib-scroll" style="max-width: 100%; max-height: {height}; overflow: auto;">{html}</div>')


def gcg_extremes_table(comparison: pd.DataFrame) -> pd.DataFrame:
    """The best (max) and worst (min) response a GCG search found at each length, beside the one-token extreme
    (``comparison``: :func:`rmlib.analysis.longer_answers.compare_with_one_token`), its columns named for a reader."""
    cols = ["model", "prompt_key", "direction", "length", "best_text", "best", "one_token_text", "one_token_extreme",
            "n_beyond", "n_restarts"]
    require_columns(comparison, cols, "gcg_extremes_table")
    return comparison[cols].rename(columns={"best_text": "response found", "best": "reward",
                                            "one_token_text": "one-token extreme", "one_token_extreme": "its reward",
                                            "n_beyond": "restarts beyond it", "n_restarts": "restarts"})
