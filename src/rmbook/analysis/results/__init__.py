"""Where a chapter's results type is found, and the section several chapters' results share.

Each chapter's typed results (a :class:`rmbook.results.ChapterResults` subclass) are in its folder
(:mod:`rmbook.chapters`): ``types.py`` the class alone, ``results.py`` the function that builds it, so the notebook's
last cell is ``write_results(results.chapter_results(...), RESULTS_DIR)``. Here:

* ``by_chapter.py``: a chapter's results type, found by its name (no table: a new chapter's type is found once its
  folder has a ``types.py``), and :func:`chapters_with_results`;
* ``types/``: ``beside``, the compute-mode section that keeps the paper RMs on a chapter's page, alone (what the
  types import);
* ``beside.py``: its builders (framing, mere_exposure, identity_terms and elo_misalignment hold it).
"""
from rmbook.analysis.results.by_chapter import chapters_with_results, result_type, result_types

__all__ = ["chapters_with_results", "result_type", "result_types"]
