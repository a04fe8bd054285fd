"""One call at the top of a chapter: charts drawn offline, tables shown as a reader should see them."""
from __future__ import annotations

import pandas as pd

from rmlib.report.charts.render import enable_offline
from rmlib.report.quiet import in_book_run, quiet_libraries
from rmlib.report.tables import MAX_ROWS_SHOWN, table_html

__all__ = ["setup_page"]


def setup_page(*, renderer: str = "svg", max_rows: int = MAX_ROWS_SHOWN) -> None:
    """Make every altair chart of this kernel render without network (:func:`rmlib.report.charts.enable_offline`)
    and every DataFrame a chapter displays render through :func:`rmlib.report.tables.table_html`: no meaningless
    integer index, long tables in a scrollable box. Outside IPython only the charts are set up. In a book run,
    libraries' warnings, logs and progress bars go to the build log instead of the page
    (:func:`rmlib.report.quiet.quiet_libraries`)."""
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
    html = shell.display_formatter.formatters["text/html"]
    html.for_type(pd.DataFrame, lambda df: table_html(df, max_rows=max_rows))
