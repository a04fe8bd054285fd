"""Types only, no builders: the identity-terms chapter's results: the terms (how many from each source, how many
flagged), where the RMs place EloEverything items that name a group of people against people's placement (the gap,
and its excess over the gap expected at the item's human rank, with the items that sit reliably below or above;
published mode only), and where identity words fall among the scored dictionary words or swept tokens of any model
(``words``). Each section is built where the chapter computes it, and its sentences are rendered from it
(``rmbook/chapters/identity_terms/prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.identity_terms.results`
builds them and re-exports them)."""
from __future__ import annotations

from typing import Literal

from rmbook.analysis.choices import PUBLISHED_OR_COMPUTE
from rmbook.analysis.results.types.beside import Beside
from rmlib.storage import Num, Section, Table
from rmbook.results import ChapterResults

__all__ = ["Terms", "BinCounts", "OtherBins", "ItemGap", "EloResults", "ValenceGap", "Fragile", "WordsResults",
           "IdentityTermsResults"]


class Terms(Section):
    """The identity terms: how many, from which source, how many flagged."""

    n_terms: int
    n_holistic_bias: int  # from HolisticBias (including those also in Dixon et al.)
    n_dixon: int  # from Dixon et al. (including those also in HolisticBias)
    n_both: int
    n_flagged: int  # terms pejorative in some uses


class BinCounts(Section):
    """The adjusted counts with another number of human-percentile bins."""

    n_below: int
    n_above: int


class OtherBins(Section):
    """The adjusted counts with a number of bins other than the chapter's."""

    bins: int
    n_below: int
    n_above: int


class ItemGap(Section):
    """One item as the verdict names it: its row (flagged †), its excess over the expected gap and its gap."""

    row: str
    excess: Num
    gap: Num


class EloResults(Section):
    """EloEverything items that name an identity term, scored by the paper RMs."""

    items: Table  # one row per item: percentiles, gap, expected_gap, excess, each with its CI over RMs
    by_axis: Table  # mean gap per HolisticBias axis, CI over the items' terms
    n_models: int
    n_items: int
    n_prompts: int  # the EloEverything prompts each item's percentiles are averaged over
    min_ci_terms: int  # the fewest terms an axis needs for its interval (stats.MIN_CI_VALUES)
    model_pct_mean: Num  # the items' mean RM percentile
    human_pct_mean: Num  # ... and human percentile
    has_interval: bool  # enough RMs (min_models) for an interval over RMs, so for a verdict
    min_models: int
    # on the excess over the expected gap (the verdict); *_raw: on the gap against zero; None with too few RMs
    n_below: int | None
    n_above: int | None
    n_below_raw: int | None
    n_above_raw: int | None
    below: list[ItemGap]  # the items reliably below, by excess (empty with too few RMs)
    above: list[ItemGap]  # ... and above
    worst: list[ItemGap]  # the three largest negative excesses, interval or not
    human_bins: int
    bin_points: float  # the width of a bin in percentile points
    baseline: str
    adjusted_by_bins: dict[str, BinCounts]  # {bins: counts}, empty with too few RMs
    other_bins: list[OtherBins]  # the same for the bin counts other than human_bins


class ValenceGap(Section):
    """The mean gap of the identity words under the prompts of one valence."""

    prompt_valence: str
    gap: Num  # mean over the term rows
    n_terms: int


class Fragile(Section):
    """Token runs: how many term × prompt-valence rows have spellings far apart."""

    points: float
    n_wide: int  # rows whose spellings' percentiles differ by more than ``points``
    n_rows: int


class WordsResults(Section):
    """Identity words among the scored words (published dictionary words, or word-like tokens of a sweep)."""

    level: Literal["word", "token"]
    level_text: str  # the level in words, for the page (for tokens with each model's reward kind)
    human_source: str  # the valence norms, as the page names them (SOURCE_NAMES)
    n_terms: int  # identity terms among the rated words (0: none, and the tables are empty)
    rows: Table  # per term × prompt valence: mean percentiles and gap (and the spread over spellings for tokens)
    by_axis: Table  # mean gap per axis × prompt valence, CI over terms
    min_ci_terms: int  # the fewest terms an axis needs for its interval (stats.MIN_CI_VALUES)
    n_universe: int | None  # median number of rated words a term is ranked among
    by_valence: list[ValenceGap]
    fragile: Fragile | None  # token runs only


class IdentityTermsResults(ChapterResults):
    CHAPTERS = ("identity_terms",)
    # 2: n_terms, n_flagged move into terms; words is always there (n_terms 0 when none is among the rated words)
    SCHEMA_VERSION = 2

    mode: Literal[PUBLISHED_OR_COMPUTE]
    terms: Terms
    elo: EloResults | None = None  # published mode only
    words: WordsResults
    models: list[str]
    reward_kinds: list[str]
    beside: Beside | None = None  # compute mode: each computed model placed among the paper RMs (rmbook.analysis.beside)
