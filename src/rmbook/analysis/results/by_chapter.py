"""Which module of :mod:`rmbook.analysis.results` holds a chapter's results type, and the type itself (read from
:mod:`rmbook.analysis.results.types`, which imports no chapter's analysis)."""
from __future__ import annotations

import importlib
import importlib.util

from rmlib.storage import ChapterResults

__all__ = ["CHAPTER_MODULES", "result_type", "result_types"]

#: chapter name -> module of this package that holds its results type (one template can serve several chapters)
CHAPTER_MODULES = {
    "method": "method", "heterogeneity": "heterogeneity", "distributions": "distributions", "framing": "framing",
    "mere_exposure": "mere_exposure", "identity_terms": "identity_terms", "elo_misalignment": "elo_misalignment",
    "longer_answers": "longer_answers", "big_two": "value_profiles", "moral_foundations": "value_profiles",
    "implicit_rewards": "implicit_rewards", "finetuning": "finetuning", "good_teachers": "good_teachers",
    "implicit_vs_explicit": "implicit_vs_explicit", "blinding": "blinding", "claims": "claims",
}


def result_type(chapter: str) -> type[ChapterResults]:
    """The results type of chapter ``chapter`` (a KeyError names the chapters that have one)."""
    if chapter not in CHAPTER_MODULES:
        raise KeyError(f"no results type for chapter {chapter!r}; chapters with results: {', '.join(CHAPTER_MODULES)}")
    name = CHAPTER_MODULES[chapter]
    # the type alone (results/types/), which imports no chapter's analysis; the claims page's own type has no split
    types = f"rmbook.analysis.results.types.{name}"
    module = importlib.import_module(types if importlib.util.find_spec(types) else f"rmbook.analysis.results.{name}")
    found = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, ChapterResults)
             and chapter in v.CHAPTERS]
    if len(found) != 1:
        raise TypeError(f"{module.__name__} must define one ChapterResults type serving {chapter!r}, found "
                        f"{[t.__name__ for t in found]}")
    return found[0]


def result_types(chapters=None) -> dict[str, type[ChapterResults]]:
    """``{chapter: results type}`` for ``chapters`` (default: every chapter with results)."""
    return {c: result_type(c) for c in (chapters or CHAPTER_MODULES)}
