"""Showing results (layer 6): every chart (``charts/``), tables as a reader sees them (``tables.py``) and findings
in sentences computed from the tables (``prose.py``). Nothing here computes a finding: it shows what
:mod:`rmlib.analysis` returns."""
from rmlib.report import charts, prose, tables
from rmlib.report.tables import show_whitespace, top_bottom_table

__all__ = ["charts", "tables", "prose", "show_whitespace", "top_bottom_table"]
