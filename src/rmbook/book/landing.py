"""The landing page's opening: the claims page's tally and a chart of its verdicts.

``book/intro.md`` includes ``book/_executed/landing.md``, which :func:`write_landing` writes from the claims page's
results just before the HTML is built. So the first thing a reader meets is a result, computed by the page that
judges the claims and unable to drift from it; before the claims page has run, it says how to run it.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from rmbook.analysis.results import result_type
from rmbook.book.chapters import EXECUTED, ROOT, results_dir
from rmbook.chapters.claims import results as claims_results
from rmbook.chapters.claims.charts import verdict_chart
from rmbook.report import charts, prose
from rmlib.storage import atomic
from rmbook.results import ResultsError, read_results

__all__ = ["LANDING_FILE", "landing_markdown", "write_landing"]

LANDING_FILE = "landing.md"  # in the executed chapters' folder; book/intro.md includes it
_CHART_ID = re.compile(r"rmlib-vis-[0-9a-f]{12}")


def landing_markdown(results: str | os.PathLike) -> str:
    """The tally of the claims page's verdicts, a link to it and the verdict chart, from the claims results in
    ``results`` (a folder); a line saying how to build them when there are none."""
    try:
        page = read_results("claims", results, result_type("claims"))
    except ResultsError:  # its message names this machine's folders, which a page must not show
        return ("The claims page has not been built yet, so there is no tally of its verdicts to show here: run "
                "`make book`.")
    rows = pd.DataFrame(page.rows)
    tally = prose.render("claims", "at_a_glance", s=claims_results.glance(rows))
    chart = charts.render_html(verdict_chart(rows).to_dict())
    chart = _CHART_ID.sub("rmlib-vis-landing", chart)  # the same results write the same page
    return (f"**What replicates.** {tally} Each square below is one claim of the papers (hover it); "
            "{doc}`What replicates </book/_executed/claims>` gives each verdict's reason, by one stated rule.\n\n"
            f"```{{raw}} html\n{chart}\n```\n")


def write_landing(root: str | os.PathLike = ROOT) -> Path:
    """Write ``<root>/book/_executed/landing.md`` from the claims results there (only when its text changes, so an
    unchanged book is not rebuilt)."""
    executed = Path(root) / EXECUTED.relative_to(ROOT)
    path = executed / LANDING_FILE
    text = landing_markdown(results_dir(executed))
    if not (path.is_file() and path.read_text(encoding="utf-8") == text):
        executed.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(path, text.encode("utf-8"))
    return path
