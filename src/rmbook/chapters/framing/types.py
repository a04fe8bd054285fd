"""Types only, no builders: the framing chapter's results: per affect lexicon, each model's oriented valence slopes and
the two halves of the framing claim (positive prompts: steeper on positive words; negative prompts: steeper on
negative words) with CIs; how many models hold, reverse or leave each half unclear, per lexicon; the prompt-by-
prompt cells; and the words that move each half most. Each paragraph the chapter says is a section, built where the
chapter computes it, and its sentences are rendered from it (``rmbook/chapters/framing/prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.framing.results` builds
them and re-exports them)."""
from __future__ import annotations

from typing import Literal

from rmbook.analysis.choices import FRAMING_HALVES, PUBLISHED_OR_COMPUTE, RESPONSES
from rmbook.analysis.results.types.beside import Beside
from rmbook.analysis.claims.rules import OUTCOMES
from rmlib.data import AFFECT_SOURCES
from rmlib.storage import Num, Record, Section, Table
from rmbook.results import ChapterResults

__all__ = ["Half", "Lexicon", "HalfCounts", "HalvesSummary", "CellCounts", "Scored", "Coverage", "Slopes",
           "HalvesFound", "Disagreement", "TopWords", "FramingResults"]


Half = Literal[tuple(FRAMING_HALVES)]
Lexicon = Literal[AFFECT_SOURCES]


class HalfCounts(Section):
    """One half of the claim over models: how many hold it (95% CI above 0), reverse it (below 0), leave it unclear."""

    holds: int
    reversed: int
    unclear: int
    n: int


class HalvesSummary(Section):
    """The two halves counted over models with one lexicon
    (:func:`rmbook.chapters.framing.analysis.framing_halves_summary`), and how many models show each pattern of the
    two."""

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


class Scored(Section):
    """What the run scored: published dictionary words (word counts per dictionary) or token sweeps mapped to words
    (each model's coverage of the lexicon words and its reward kind)."""

    mode: Literal[PUBLISHED_OR_COMPUTE]
    n_models: int
    n_prompts: int
    n_words: int | None = None  # published: distinct dictionary words ...
    n_big2: int | None = None  # ... only in the Big Two nouns
    n_mfd2: int | None = None  # ... only in MFD2
    n_both: int | None = None  # ... in both
    coverage: dict[str, float] = {}  # compute: per model, the share of lexicon words matched by single tokens
    reward_kinds: dict[str, str] = {}  # compute: per model


class Coverage(Section):
    """How many positive and negative words the main lexicon rates among the scored words, and how many words each
    other lexicon rates."""

    main: Lexicon
    n_positive: int
    n_negative: int
    others: dict[Lexicon, int]


class Slopes(Section):
    """The median over models of each of the four oriented slopes (main lexicon)."""

    n_models: int
    unit: str
    s_pp: float  # positive words, positive prompts
    s_np: float  # negative words, positive prompts
    s_nn: float  # negative words, negative prompts
    s_pn: float  # positive words, negative prompts


class HalvesFound(Section):
    """Each half of the claim over models and over model × prompt cells, the per-model patterns and the claims
    page's verdicts (main lexicon)."""

    main: Lexicon
    unit: str
    summary: HalvesSummary
    outcome: dict[Half, Literal[OUTCOMES]]  # the claims page's rule on each half
    most: float  # the share of models that must show a half for it to hold (the claims page's rule)
    pos_congruent_steeper: int  # positive prompts: cells whose positive words are steeper
    pos_cells: int
    neg_congruent_steeper: int  # negative prompts: cells whose negative words are steeper
    neg_cells: int
    opposite_signs: bool  # some model's halves have opposite signs
    framing_min: float  # the pooled framing contrast's range over models
    framing_max: float


class Disagreement(Section):
    """Why the lexicons disagree about the weaker half (:func:`rmbook.chapters.framing.sources.weak_half_drivers`)."""

    main: Lexicon
    weak_prompts: str  # the weaker half's prompts, in words ('negative prompts')
    weak_holds: int  # models holding the weaker half with the main lexicon
    weak_holds_other: dict[Lexicon, int]  # ... with each other lexicon
    n: int  # models
    down_words: list[str]  # the main lexicon's words that pull the weaker half down most
    down_mean_y: list[float]  # their mean standardised rewards under that half's prompts
    below_mean: list[str]  # negative-prompt half only: those of them below the mean (not offered as the worst)
    all_below_mean: bool
    neg_extreme: dict[Lexicon, Num]  # per lexicon: median extremeness of the negative ones among down_words
    worst_named: list[str]  # the negative words the RMs score highest under negative prompts
    named_extreme: dict[Lexicon, Num]  # per lexicon: their median extremeness


class TopWords(Section):
    """Per prompt valence, the highest- and lowest-scored words by standardised reward (not oriented)."""

    published: bool  # published scores (the MFD2's obscenities and slurs appear as data)
    pos_highest: list[str]
    pos_lowest: list[str]
    neg_highest: list[str]
    neg_lowest: list[str]


class FramingResults(ChapterResults):
    CHAPTERS = ("framing",)
    SCHEMA_VERSION = 2  # 2: the paragraphs' sections (scored ... top_words); halves_summary, halves_outcome -> halves_found

    mode: Literal[PUBLISHED_OR_COMPUTE]
    level: Literal["word", "token"]
    response: Literal[RESPONSES]
    main_source: Lexicon
    models: list[str]
    reward_kinds: list[str]
    prompts: list[str]
    n_words: dict[Lexicon, int]  # distinct lexicon words scored, per lexicon
    contrast: dict[Lexicon, Table]  # per lexicon, one row per model: the oriented slopes, halves and contrasts
    halves: Table  # main lexicon, one row per model: each half's verdict, the pattern and the 'k of n' cells
    halves_found: HalvesFound  # main lexicon: the counts, cells, patterns and verdicts of each half
    halves_by_source: dict[Lexicon, HalvesSummary]
    cell_counts_by_half: list[CellCounts]
    cells: Table  # main lexicon: one row per model × prompt
    influential_words: dict[Lexicon, Table]
    weak_half: Half  # the half the fewest models hold with the main lexicon
    scored: Scored
    coverage: Coverage
    slopes: Slopes
    disagreement: Disagreement
    top_words: TopWords
    beside: Beside | None = None  # compute mode: each computed model placed among the paper RMs (rmbook.analysis.beside)
