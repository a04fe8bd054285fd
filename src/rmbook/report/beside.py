"""A compute-mode chapter's models beside the paper RMs, on the page: the shared sentences and the dot chart.

Four chapters (framing, mere exposure, identity terms, EloEverything misalignment) keep the ten paper RMs on the page
when they run on other models (#43 item 7): each places its models with its own measure
(``beside_paper_rms`` in its analysis, :mod:`rmbook.analysis.beside`) and its own section (``paper_rms`` in its
results); how that is shown is the same everywhere, so it is written once, here.
"""
from __future__ import annotations

from IPython.display import Markdown, display

from rmbook.analysis.results.beside import Beside
from rmbook.report import prose
from rmbook.report.charts.card import beside_chart

__all__ = ["show_beside"]


def show_beside(section: Beside | None, placed: dict | None, title: str, x_title: str) -> None:
    """Show where the computed models fall among the paper RMs: the sentences of ``section`` (the chapter's
    ``paper_rms(placed, ...)``), then, when any model was placed, the chart of ``placed`` (``beside_paper_rms``'s
    result) titled ``title`` with the measure ``x_title`` on its axis. In published mode (both None) nothing."""
    if section is None:
        return
    display(Markdown(prose.render("beside", "placed", s=section)))
    if section.rows:
        display(beside_chart(placed, title, x_title))
