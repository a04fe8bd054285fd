"""The framing chapter's results: per affect lexicon, each model's oriented valence slopes and the two halves of the
framing claim (positive prompts: steeper on positive words; negative prompts: steeper on negative words) with CIs;
how many models hold, reverse or leave each half unclear, per lexicon; the prompt-by-prompt cells; and the words that
move each half most."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis.framing import sources as fs
from rmlib.analysis.claims.rules import OUTCOMES
from rmlib.analysis.framing import FRAMING_HALVES
from rmlib.analysis.words import MODES
from rmlib.data import AFFECT_SOURCES
from rmlib.storage import ChapterResults, Record, Section, Table

__all__ = ["Half", "Lexicon", "HalfCounts", "HalvesSummary", "CellCounts", "FramingResults", "chapter_results"]

Half = Literal[tuple(FRAMING_HALVES)]
Lexicon = Literal[AFFECT_SOURCES]


class HalfCounts(Section):
    """One half of the claim over models: how many hold it (95% CI above 0), reverse it (below 0), leave it unclear."""

    holds: int
    reversed: int
    unclear: int
    n: int


class HalvesSummary(Section):
    """The two halves counted over models with one lexicon (:func:`rmlib.analysis.framing.framing_halves_summary`),
    and how many models show each pattern of the two."""

    pos_prompts: HalfCounts
    neg_prompts: HalfCounts
    patterns: dict[str, int]
    n: int


class CellCounts(Record):
    """One half, prompt by prompt (main lexicon): in how many model × prompt cells the congruent word side has the
    steeper oriented slope."""

    half: Half
    n_congruent_steeper: int
    n_cells: int


class FramingResults(ChapterResults):
    CHAPTERS = ("framing",)

    mode: Literal[MODES]
    level: Literal["word", "token"]
    response: Literal[fs.RESPONSES]
    main_source: Lexicon
    models: list[str]
    reward_kinds: list[str]
    prompts: list[str]
    n_words: dict[Lexicon, int]  # distinct lexicon words scored, per lexicon
    contrast: dict[Lexicon, Table]  # per lexicon, one row per model: the oriented slopes, halves and contrasts
    halves: Table  # main lexicon, one row per model: each half's verdict, the pattern and the 'k of n' cells
    halves_summary: HalvesSummary  # main lexicon
    halves_outcome: dict[Half, Literal[OUTCOMES]]  # main lexicon: the claims page's rule on each half
    halves_by_source: dict[Lexicon, HalvesSummary]
    cell_counts_by_half: list[CellCounts]
    cells: Table  # main lexicon: one row per model × prompt
    influential_words: dict[Lexicon, Table]
    weak_half: Half  # the half the fewest models hold with the main lexicon


def chapter_results(mode: str, response: str, main: str, scores: pd.DataFrame, prompts: pd.DataFrame,
                    frames: dict[str, pd.DataFrame], contrasts: dict[str, pd.DataFrame], halves: pd.DataFrame,
                    summary: dict, outcome: dict[str, str], by_half: pd.DataFrame, cells: pd.DataFrame,
                    drivers: dict) -> FramingResults:
    """The chapter's results from its scores and lexicon frames, the contrasts, the main lexicon's halves
    (:func:`~rmlib.analysis.framing.framing_halves_summary`, :func:`~rmlib.analysis.framing.sources.halves_outcome`),
    the prompt-by-prompt cells (:func:`~rmlib.analysis.framing.sources.cell_agreement`) and the drivers
    (:func:`~rmlib.analysis.framing.sources.weak_half_drivers`)."""
    return FramingResults(
        mode=mode, level=str(scores["level"].iloc[0]), response=response, main_source=main,
        models=sorted(scores["model"].unique()), reward_kinds=sorted(scores["reward_kind"].unique()),
        prompts=prompts["prompt_key"].tolist(), n_words={s: f["word"].nunique() for s, f in frames.items()},
        contrast=contrasts, halves=halves, halves_summary=summary, halves_outcome=outcome,
        halves_by_source=drivers["summaries"], cell_counts_by_half=by_half.reset_index(), cells=cells,
        influential_words=drivers["drivers"], weak_half=drivers["weak"])
