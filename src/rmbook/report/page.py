"""One call at the top of a chapter: charts drawn offline, tables shown as a reader should see them, slurs masked
unless the chapter's ``SHOW_SLURS`` parameter asks for them in full."""
from __future__ import annotations

import pandas as pd

from rmbook.paths import ROOT
from rmbook.report.charts.render import enable_offline
from rmbook.report.masking import mask_frame, mask_text, show_slurs as _show_slurs, slurs_shown
from rmbook.report.quiet import in_book_run, quiet_libraries
from rmbook.report.tables import MAX_ROWS_SHOWN, styler_view, table_html
from rmlib import config

__all__ = ["setup_page", "relative_paths"]


def relative_paths(text: str) -> str:
    """``text`` without the building machine's absolute paths: the rmlib cache reads as ``$RMLIB_CACHE_DIR``, the
    repository as ``.`` (a model's "no trained RM at <its folder in the cache>" reason, shown on a page)."""
    for folder, name in ((config.cache_dir(), "$RMLIB_CACHE_DIR"), (ROOT, ".")):
        text = text.replace(str(folder), name)
    return text


def _shown(text: str) -> str:
    """What a page shows of ``text``: no machine paths, and slurs masked unless asked for."""
    text = relative_paths(text)
    return text if slurs_shown() else mask_text(text)


def setup_page(*, renderer: str = "svg", max_rows: int = MAX_ROWS_SHOWN, show_slurs: bool = False) -> None:
    """Make every altair chart of this kernel render without network (:func:`rmbook.report.charts.enable_offline`)
    and every DataFrame a chapter displays render through :func:`rmbook.report.tables.table_html`: no meaningless
    integer index, long tables in a scrollable box. Outside IPython only the charts are set up. In a book run,
    libraries' warnings, logs and progress bars go to the build log instead of the page
    (:func:`rmbook.report.quiet.quiet_libraries`).

    Unless ``show_slurs`` is true, what the page shows has its slurs masked (:mod:`rmbook.report.masking`): the
    DataFrames, Stylers (whose headers are worded as a DataFrame's are: :func:`rmbook.report.tables.styler_view`),
    charts' data and markdown or HTML cells. Those show no absolute path of the building
    machine either (:func:`relative_paths`). The data and the stored results are untouched."""
    _show_slurs(show_slurs)
    enable_offline(renderer)
    if in_book_run():
        quiet_libraries()
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with the notebook stack
        return
    shell = get_ipython()
    if shell is None:
        return
    from IPython.display import HTML, Markdown
    from pandas.io.formats.style import Styler

    formatters = shell.display_formatter.formatters
    html, markdown, plain = formatters["text/html"], formatters["text/markdown"], formatters["text/plain"]
    html.for_type(pd.DataFrame, lambda df: relative_paths(table_html(df if slurs_shown() else mask_frame(df),
                                                                     max_rows=max_rows)))
    plain.for_type(pd.DataFrame, lambda df, p, cycle: p.text(relative_paths(repr(df if slurs_shown()
                                                                               else mask_frame(df)))))
    html.for_type(Styler, lambda styler: _shown(styler_view(styler).to_html()))
    html.for_type(HTML, lambda obj: _shown(obj.data))
    markdown.for_type(Markdown, lambda obj: _shown(obj.data))
