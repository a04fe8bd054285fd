"""Types only, no builders: the mere-exposure chapter's results: with valence held fixed, how often an RM's score rises
with word frequency (the share of model × prompt cells with a positive frequency slope against a shuffled-frequency
baseline, per frequency matching, prompt valence and dictionary), each model's pooled frequency slope and the claims
page's verdict over models, how far the frequency matchings agree, and (compute mode) the slopes with the base LM's
log-prob held fixed. Each section is built where the chapter computes it, and its sentences are rendered from it
(``rmbook/chapters/mere_exposure/prose.md.j2``); the tables the claims page reads stay where they were.

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.mere_exposure.results`
builds them and re-exports them)."""
from __future__ import annotations

from typing import Literal

from rmbook.analysis.choices import PUBLISHED_OR_COMPUTE
from rmbook.analysis.results.types.beside import Beside
from rmbook.analysis.claims.rules import OUTCOMES
from rmlib.data import AFFECT_SOURCES, FREQUENCY_SOURCES
from rmlib.storage import Num, Record, Section, Table
from rmbook.results import ChapterResults

__all__ = ["Matching", "ModelVerdict", "Scores", "Shares", "Dictionaries", "Verdicts", "Agreement", "LmControl",
           "MereExposureResults"]


Matching = Literal[FREQUENCY_SOURCES]
Valence = Literal["positive", "negative"]


class ModelVerdict(Record):
    """One frequency matching and prompt valence: how many models have a pooled frequency slope above / below zero
    (95% CI clustered by word) and the claims page's outcome."""

    source: Matching
    prompts: Valence
    n_above: int
    n_below: int
    n_models: int
    outcome: Literal[OUTCOMES]


class RewardKind(Section):
    model: str
    kind: str


class Covered(Section):
    source: Matching
    label: str  # the matching in words (FREQUENCY_LABELS)
    share: Num  # share of the run's distinct words the list covers


class Scores(Section):
    """What was scored: models, prompts and words (published) or word-like tokens per model (compute), and how many
    of the words each frequency list covers."""

    mode: Literal[PUBLISHED_OR_COMPUTE]
    n_models: int
    n_prompts: int
    n_words: int | None  # published mode: distinct dictionary words
    tokens_min: int | None  # compute mode: the fewest / most word tokens of one model
    tokens_max: int | None
    reward_kinds: list[RewardKind]  # per model
    coverage: list[Covered]


class ShareRow(Section):
    source: Matching
    label: str
    n_positive: int
    n_cells: int
    share: Num
    null_low: Num  # the middle 95% of the shuffled shares
    null_high: Num
    p_greater: Num  # permutation p of the observed share against the shuffled ones


class ShareValence(Section):
    prompts: Valence
    heading: str  # "Positive" / "Negative"
    rows: list[ShareRow]  # one per matching of the run


class Shares(Section):
    """Per prompt valence, the share of positive slopes per matching next to its shuffled baseline, and in how many
    valenced rows the baseline is too wide to read a share against."""

    valences: list[ShareValence]
    n_rows: int  # valenced rows of the share table (every matching and subset)
    n_wide: int  # ... whose middle 95% of shuffled shares spans more than half the scale


class DictionaryRow(Section):
    dictionary: str
    prompts: str
    source: Matching
    label: str
    n_positive: int
    n_cells: int


class Dictionaries(Section):
    """The shares refitted within each dictionary: their range and the combinations below the claims page's rule
    (none in compute mode, whose tokens belong to no dictionary)."""

    n_combinations: int  # dictionary × prompt valence × matching
    share_min: Num
    share_max: Num
    most: float  # the claims page's MOST
    low: list[DictionaryRow]  # combinations with a share below MOST


class VerdictRow(Section):
    source: Matching
    label: str
    n_above: int
    n_below: int
    n_models: int
    outcome: Literal[OUTCOMES]


class VerdictValence(Section):
    prompts: Valence
    heading: str
    rows: list[VerdictRow]  # one per matching
    outcome: Literal[OUTCOMES] | None  # the outcome every matching gives, None when they differ
    against: list[VerdictRow]  # the matchings under which some models' slopes are clearly below zero


class Verdicts(Section):
    """Per prompt valence, the models with a pooled slope above / below zero per matching, and the verdict."""

    valences: list[VerdictValence]
    most: float


class AgreementPair(Section):
    a: Matching
    b: Matching
    a_label: str
    b_label: str
    rho: Num  # Spearman between the two matchings' cell slopes
    same_sign: Num  # share of cells whose slopes have the same sign


class Agreement(Section):
    pairs: list[AgreementPair]


class LmControl(Section):
    """Compute mode: the frequency slope of an LM's own log-prob (what the KL term rewards), and a trained RM's slope
    with and without its base LM's log-prob held fixed (medians over prompts)."""

    mode: Literal[PUBLISHED_OR_COMPUTE]
    has_reference: bool  # some model has a known reference LM
    n_lm_cells: int
    n_rm_cells: int
    lm_slope_min: Num
    lm_slope_max: Num
    rho_median: Num  # trained RMs: Spearman of reward and base-LM log-prob
    reward_slope_median: Num
    reward_slope_given_lm_median: Num


class MereExposureResults(ChapterResults):
    CHAPTERS = ("mere_exposure",)
    SCHEMA_VERSION = 2  # 2: the sections the sentences are rendered from (scores ... lm_control) are stored

    mode: Literal[PUBLISHED_OR_COMPUTE]
    level: Literal["word", "token"]
    models: list[str]
    reward_kinds: list[str]
    prompts: list[str]
    valence_source: Literal[AFFECT_SOURCES]
    coverage: dict[Matching, Num]  # share of the run's distinct words each frequency list covers
    matchings: list[Matching]
    by_valence: Table  # shares of positive cells per matching × prompt valence, with the shuffled baseline
    by_dictionary: Table  # the same within each dictionary (Big Two, MFD2)
    by_model: list[ModelVerdict]
    pooled: Table  # per model and matching: the pooled frequency slope under each prompt valence
    source_agreement: Table  # per pair of matchings: how far their cell slopes agree
    kl: Table  # compute mode: slopes with the base LM's log-prob held fixed (empty in published mode)
    scores: Scores
    shares: Shares
    dictionaries: Dictionaries
    verdicts: Verdicts
    agreement: Agreement
    lm_control: LmControl
    beside: Beside | None = None  # compute mode: each computed model placed among the paper RMs (rmbook.analysis.beside)
