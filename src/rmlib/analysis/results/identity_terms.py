"""The identity-terms chapter's results: where the RMs place EloEverything items that name a group of people against
people's placement (the gap, and its excess over the gap expected at the item's human rank, with how many items sit
reliably below or above; published mode only), and where identity words fall among the scored dictionary words or
swept tokens of any model (``words``, when any term is among them)."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis import identity
from rmlib.storage import ChapterResults, Section, Table

__all__ = ["BinCounts", "EloResults", "WordsResults", "IdentityTermsResults", "elo_results", "chapter_results"]


class BinCounts(Section):
    """The adjusted counts with another number of human-percentile bins."""

    n_below: int
    n_above: int


class EloResults(Section):
    """EloEverything items that name an identity term, scored by the paper RMs."""

    items: Table  # one row per item: percentiles, gap, expected_gap, excess, each with its CI over RMs
    by_axis: Table  # mean gap per HolisticBias axis, CI over the items' terms
    n_models: int
    n_items: int
    # on the excess over the expected gap (the verdict); *_raw: on the gap against zero; None with too few RMs
    n_below: int | None
    n_above: int | None
    n_below_raw: int | None
    n_above_raw: int | None
    human_bins: int
    baseline: str
    adjusted_by_bins: dict[str, BinCounts]  # {bins: counts}, empty with too few RMs


class WordsResults(Section):
    """Identity words among the scored words (published dictionary words, or word-like tokens of a sweep)."""

    level: Literal["word", "token"]
    rows: Table  # per term × prompt valence: mean percentiles and gap (and the spread over spellings for tokens)
    by_axis: Table  # mean gap per axis × prompt valence, CI over terms
    n_universe: int  # median number of rated words a term is ranked among


class IdentityTermsResults(ChapterResults):
    CHAPTERS = ("identity_terms",)

    mode: Literal[identity.MODES]
    elo: EloResults | None = None  # published mode only
    words: WordsResults | None = None  # None when no identity term is among the scored words
    models: list[str]
    reward_kinds: list[str]
    n_terms: int
    n_flagged: int  # terms pejorative in some uses


def elo_results(items: pd.DataFrame, verdicts: dict, n_models: int, sensitivity: dict,
                by_axis: pd.DataFrame) -> EloResults:
    """The item-level numbers from :func:`identity.identity_items` (``items``), :func:`identity.item_verdicts`,
    :func:`identity.bin_sensitivity` (empty without enough RMs) and :func:`identity.axis_gaps`."""
    enough = n_models >= identity.MIN_MODELS_FOR_CI
    return EloResults(items=items.drop(columns=["row"]), by_axis=by_axis, n_models=n_models,
                      **identity.verdicts_summary(items, verdicts, enough),
                      adjusted_by_bins={str(b): c for b, c in sensitivity.items()})


def _words_results(words: dict, mode: str) -> WordsResults | None:
    if not len(words["table"]):
        return None
    return WordsResults(level="word" if mode == "published" else "token", rows=words["table"].drop(columns=["row"]),
                        by_axis=words["by_axis"], n_universe=int(words["ranks"]["n_universe"].median()))


def chapter_results(mode: str, terms: pd.DataFrame, words: dict, elo: EloResults | None = None) -> IdentityTermsResults:
    """The chapter's results from the identity terms, :func:`identity.identity_words` (``words``) and, in published
    mode, :func:`elo_results`."""
    scored = words["words"]
    return IdentityTermsResults(mode=mode, elo=elo, words=_words_results(words, mode),
                                models=sorted(scored["model"].unique()),
                                reward_kinds=sorted(scored["reward_kind"].unique()), n_terms=len(terms),
                                n_flagged=int(terms["pejorative_in_some_uses"].sum()))
