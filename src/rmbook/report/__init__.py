"""Showing results (layer 7): every chart (``charts/``), tables as a reader sees them (``tables.py``), findings in
sentences (``prose/``: one Jinja template per chapter, rendered from the chapter's results) and the one call that sets a chapter's
page up (:func:`setup_page`). Nothing here computes a finding: it shows what :mod:`rmbook.analysis` returns.

* ``compact_tables.py``: the building blocks of a chapter's compact tables (related numbers in one cell; each
  chapter's views are in its folder's ``tables.py``);
* ``card.py``: a value card's ``card.md``, the sentences a model's author can paste into a model card;
* ``beside.py``: :func:`show_beside`, a compute-mode chapter's models beside the paper RMs (sentences and chart);
* ``brief.py``: a chapter's "In brief", its claims judged by the claims page's rules on its own numbers;
* ``page.py``: :func:`setup_page`, the one call at the top of a chapter (charts offline, tables as a reader sees them);
* ``masking.py``: the masked view, slurs shown as ``n****r`` in tables, charts and sentences unless asked for;
* ``quiet.py``: keeps libraries' warnings, logs and progress bars off a book page (into the build log) in a book run.
"""
from rmbook.report import charts, prose, tables
from rmbook.report.page import setup_page
from rmbook.report.tables import show_whitespace, table_html, top_bottom_panels, top_bottom_table

__all__ = ["charts", "tables", "prose", "setup_page", "show_whitespace", "top_bottom_table", "top_bottom_panels",
           "table_html"]
