"""Types only, no builders: the distributions chapter's results: per run (published EloEverything items, a token sweep)
and model, the shape of the reward distribution (moments and tail asymmetry with bootstrap CIs, and how many RMs are
reliably skewed either way), what fills its top and bottom tails, which token features separate the tails, and how
many token texts the swept tokenizers share. Each section is built where the chapter computes it, and its sentences
are rendered from it (``rmbook/chapters/distributions/prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.distributions.results`
builds them and re-exports them)."""
from __future__ import annotations

from typing import Literal

from rmbook.analysis.choices import ANY_MODE
from rmlib.storage import Num, Record, Section, Table
from rmbook.results import ChapterResults

__all__ = ["RunName", "AnswerSet", "SkewCounts", "Moment", "TailAsymmetry", "Shape", "DominantKind", "TailKinds",
           "WordShareRow", "WordShare", "DistributionsResults"]


#: the runs a chapter can have (``MODE="both"`` has the two)
RunName = Literal["published", "compute"]


class AnswerSet(Section):
    """What one run holds: its models, how many answers each scored, and how many are LMs (implicit rewards)."""

    run: RunName
    models: list[str]
    n_models: int
    n_answers_min: int
    n_answers_max: int
    same_size: bool  # every model scored as many answers
    n_lm: int  # models whose reward is an LM's log-probability of the answer


class SkewCounts(Section):
    """One run's skewness verdicts: of ``n`` distributions, how many have a 95% CI below 0 / above 0."""

    n: int
    n_negative: int
    n_positive: int


class Moment(Record):
    """One moment (mean, variance, skewness, kurtosis) of one model's rewards in one run, with its bootstrap CI."""

    run: RunName
    model: str
    moment: str
    estimate: Num
    ci_low: Num
    ci_high: Num
    n: int


class TailAsymmetry(Record):
    """One model's tail asymmetry (Q99 − median)/(median − Q1) in one run, with its bootstrap CI."""

    run: RunName
    model: str
    estimate: Num
    ci_low: Num
    ci_high: Num
    n: int


class Shape(Section):
    """Over every run together: how many skewness CIs exclude 0 either way, the most asymmetric distribution (largest
    |skewness|), and how many tail-asymmetry ratios have a CI wholly below / above 1."""

    skew: SkewCounts
    most_asymmetric: Moment
    n_ratio_below_1: int  # a longer low tail
    n_ratio_above_1: int


class DominantKind(Record):
    """One model's most common kind of answer in its top and in its bottom tail, with its share there and its lift
    (share in the tail / share in the whole set)."""

    model: str
    top_value: str
    top_share: float
    top_lift: Num
    bottom_value: str
    bottom_share: float
    bottom_lift: Num


class TailKinds(Section):
    """One run's tails (``k`` answers each): what dominates each, per model."""

    run: RunName
    k: int
    models: list[DominantKind]


class WordShareRow(Record):
    """One model's share of whole words in its top and bottom tails, with the CI of the difference."""

    model: str
    top_mean: Num
    bottom_mean: Num
    difference: Num
    ci_low: Num
    ci_high: Num


class WordShare(Section):
    """The whole-word feature of :func:`~rmbook.chapters.distributions.analysis.token_feature_tails`, per model;
    ``computed`` is False without a compute run (published scores are of EloEverything items, not tokens)."""

    computed: bool
    models: list[WordShareRow]


class DistributionsResults(ChapterResults):
    CHAPTERS = ("distributions",)
    SCHEMA_VERSION = 2  # 2: adds the sections the sentences are rendered from (answer_sets, shape, tails, word_share)

    mode: Literal[ANY_MODE]
    runs: list[RunName]
    answer_sets: dict[RunName, AnswerSet]
    skew_summary: dict[RunName, SkewCounts]
    shape: Shape
    moments: list[Moment]
    asymmetry: list[TailAsymmetry]
    composition: dict[RunName, Table]  # per run: each model's tail shares by kind of answer, with CIs and lift
    tails: dict[RunName, TailKinds]
    features: Table  # compute runs: token features of the top against the bottom tail (empty without one)
    word_share: WordShare
    shared_vocabulary_size: int | None  # token texts every swept tokenizer has; None without two swept models
