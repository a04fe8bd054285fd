"""The longer-answers chapter's results: whether the published scores of longer answers rise with length, and, for
fresh GCG searches of multi-token answers, how their rewards compare with the best and worst one-token answers and
which word categories the two share."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis import longer_answers as la
from rmlib.storage import ChapterResults, Table

__all__ = ["LongerAnswersResults", "chapter_results"]


class LongerAnswersResults(ChapterResults):
    CHAPTERS = ("longer_answers",)

    mode: Literal[la.MODES]
    published: Table | None = None  # per RM, answer length against reward (published mode)
    models: list[str]  # models searched (compute mode; empty otherwise)
    absent: dict[str, str]  # model id -> why it could not be searched here
    prompts: dict[str, str]  # prompt key -> prompt text
    lengths: list[int]
    restarts: int
    steps: int
    comparison: Table  # GCG optima against the one-token extremes, per model, prompt, direction and length
    category_sharing: Table


def chapter_results(mode: str, published: pd.DataFrame | None, models: list[str], absent: dict[str, str],
                    prompts: dict[str, str], lengths: list[int], restarts: int, steps: int,
                    comparison: pd.DataFrame, sharing: pd.DataFrame) -> LongerAnswersResults:
    """The chapter's results from what its cells computed (``published`` is None when published mode is off)."""
    return LongerAnswersResults(mode=mode, published=published, models=models, absent=absent, prompts=prompts,
                                lengths=lengths, restarts=restarts, steps=steps, comparison=comparison,
                                category_sharing=sharing)
