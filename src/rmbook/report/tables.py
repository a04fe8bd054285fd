"""Tables as a reader sees them: top and bottom answers side by side, invisible characters made visible, long tables
in a scrollable box without pandas' meaningless 0..n-1 index (:func:`table_html`, installed for every DataFrame of a
chapter by :func:`rmbook.report.setup_page`)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.analysis.choices import HALF_WORDS
from rmbook.report.masking import mask_frame, slurs_shown
from rmlib.data.tokens import show_whitespace
from rmlib.stats import require_columns, top_bottom

__all__ = ["show_whitespace", "top_bottom_table", "top_bottom_panels", "table_html", "reader_view", "styler_view",
           "number_text", "p_text", "gcg_extremes_table", "MAX_ROWS_SHOWN", "VALUE_WORDS"]

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
    unless the page shows them (:mod:`rmbook.report.masking`)."""
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


MISSING = "—"  # what the prose writes for a number that was not computed (rmbook.report.prose.render.num)

# The words a page shows for values that results store as identifiers (the data keep them: results, claims and tests
# key on them). Prompt keys, chapter names and data-source ids stay as they are: a reader types them as parameters.
VALUE_WORDS = {
    "in_distribution": "in distribution", "token_shift": "token shift",
    "token_shift_drop": "drop under the token shift", "chosen_rejected_overlap": "chosen–rejected overlap",
    "is_word": "is a word", "leading_space": "leading space", "n_chars": "characters",
    **HALF_WORDS,
    "body_type": "body type", "gender_and_sex": "gender and sex", "political_ideologies": "political ideologies",
    "race_ethnicity": "race or ethnicity", "sexual_orientation": "sexual orientation",
}


def _missing(x) -> bool:
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):  # a list or an array in a cell
        return False


def _value_text(v):
    """A cell that is not a float, as a page shows it: ``—`` when missing, a stored identifier in words."""
    if _missing(v):
        return MISSING
    return VALUE_WORDS.get(v, v) if isinstance(v, str) else v


def number_text(x) -> str:
    """A float as a table shows it: three significant digits (12.3, 0.123, 1.23e-05), a whole number of four or
    more digits with separators (12,346), and ``—`` for a missing value; not pandas' six decimals."""
    if _missing(x):
        return MISSING
    x = float(x)
    if abs(x) >= 1000 and abs(x) < 1e15:
        return f"{x:,.0f}"
    return f"{x:.3g}"


P_FLOOR = 0.001  # the smallest p printed as a number; below it, "< 0.001"


def p_text(p) -> str:
    """A p-value as papers print it: two significant digits (0.012, 0.34), and ``< 0.001`` below that (not
    ``0.000e+00`` for a p that underflowed, nor 3.1e-17: the tables' p-values are read against 0.05, not compared
    by their exponents)."""
    if _missing(p):
        return MISSING
    return f"< {P_FLOOR}" if float(p) < P_FLOOR else f"{float(p):.2g}"


def _is_p(name) -> bool:
    n = str(name).lower().replace(" ", "_")
    return n in ("p", "pvalue", "p_value") or n.startswith("p_") or n.endswith("_p")


def _header(name):
    """A column name as a reader reads it: snake_case words spaced ('share_truncated' -> 'share truncated')."""
    if isinstance(name, tuple):
        return tuple(_header(n) for n in name)
    return name.replace("_", " ") if isinstance(name, str) else name


def styler_view(styler):
    """A pandas Styler as a page shows it: its column headers in words, as :func:`reader_view` words a DataFrame's
    (a chapter that styles a table keeps its own number formats). Returns the same Styler, so it displays once."""
    return styler.format_index(_header, axis=1)


def reader_view(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as a page shows it (the data and the stored results are untouched): headers in words, floats to three
    significant digits (:func:`number_text`), p-values by :func:`p_text` (a column named ``p``, ``p_*`` or ``*_p``),
    ``—`` for every missing value (NaN, None, ``<NA>``), and stored identifiers in words (:data:`VALUE_WORDS`), in
    cells and row labels alike."""
    out = df.copy()
    for i, col in enumerate(df.columns):
        values = df.iloc[:, i]
        if pd.api.types.is_float_dtype(values.dtype):
            fmt = p_text if _is_p(col[-1] if isinstance(col, tuple) else col) else number_text
            out.isetitem(i, values.map(fmt).astype(object))
        elif values.dtype == object or isinstance(values.dtype, pd.api.extensions.ExtensionDtype):
            out.isetitem(i, values.map(_value_text).astype(object))
    out.columns = (pd.MultiIndex.from_tuples([_header(c) for c in df.columns], names=df.columns.names)
                   if isinstance(df.columns, pd.MultiIndex) else [_header(c) for c in df.columns])
    out.index = out.index.set_names([_header(n) for n in out.index.names])
    return out.rename(index=lambda v: VALUE_WORDS.get(v, v) if isinstance(v, str) else v)


def table_html(df: pd.DataFrame, *, max_rows: int = MAX_ROWS_SHOWN) -> str:
    """``df`` as HTML for a page, in its :func:`reader_view`: without a default 0..n-1 index, every row kept, always
    inside a box that scrolls sideways when the table is wider than the page (a 17-column table would otherwise be
    cut off at the right), and that scrolls down when it has more than about ``max_rows`` rows (the row count is
    said above it)."""
    html = reader_view(df).to_html(index=not _meaningless_index(df.index), max_rows=None, max_cols=None, border=0,
                                   classes="dataframe rmlib-table")
    if len(df) <= max_rows:
        return f'<div class="rmlib-scroll" style="max-width: 100%; overflow-x: auto;">{html}</div>'
    height = f"{1.9 * (max_rows + 1):.0f}em"
    return (f'<div class="rmlib-table-note">{len(df):,} rows (scroll)</div>'
            f'<div class="rmlib-scroll" style="max-width: 100%; max-height: {height}; overflow: auto;">{html}</div>')


def gcg_extremes_table(comparison: pd.DataFrame) -> pd.DataFrame:
    """The best (max) and worst (min) response a GCG search found at each length, beside the one-token extreme
    (``comparison``: :func:`rmbook.chapters.longer_answers.analysis.compare_with_one_token`), its columns named for a
    reader."""
    cols = ["model", "prompt_key", "direction", "length", "best_text", "best", "one_token_text", "one_token_extreme",
            "n_beyond", "n_restarts"]
    require_columns(comparison, cols, "gcg_extremes_table")
    return comparison[cols].rename(columns={"best_text": "response found", "best": "reward",
                                            "one_token_text": "one-token extreme", "one_token_extreme": "its reward",
                                            "n_beyond": "restarts beyond it", "n_restarts": "restarts"})
