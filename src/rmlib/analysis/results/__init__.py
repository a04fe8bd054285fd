"""Each chapter's results type: one module per chapter, each defining one :class:`rmlib.storage.ChapterResults`
subclass (its fields are what the chapter computed, typed) and one function that builds it from the chapter's
computed pieces, so the notebook's last cell is ``write_results(<module>.chapter_results(...), RESULTS_DIR)``.

The claims page, the chapter tests and :func:`result_type` find a chapter's type here by its name.
"""
from rmlib.analysis.results.by_chapter import CHAPTER_MODULES, result_type, result_types

__all__ = ["CHAPTER_MODULES", "result_type", "result_types"]
