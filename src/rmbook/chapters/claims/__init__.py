"""What replicates: every claim of the papers, gathered from the chapters that test them and judged by a stated rule
from the chapters' typed results.

Each chapter that tests a claim holds it in its own folder (``claims.py``, with ``claims.md.j2`` for its evidence
sentences); the rules, the evidence with provenance and the judging are the shared layer's
(:mod:`rmbook.analysis.claims`). This page only gathers and renders. The chapter's files:

* ``analysis.py``: what the notebook calls: the gathered claims and the shared layer's rules, re-exported;
* ``results.py``: builds the chapter's results (``chapter_results``), the sources read and the verdicts at a glance;
* ``prose.md.j2``: the page's own sentences (what was read, the rules, the verdicts at a glance, each claim);
* ``charts.py``: the charts only this chapter draws;
* ``params.yaml``: the full-run values ``make book`` uses.
"""
__all__ = []  # a folder of modules, each imported by its name
