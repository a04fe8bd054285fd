"""Types only, no builders: the value-profile chapters' results (big_two and moral_foundations, one template): per
score table (published scores of the paper RMs; in compute mode fresh scores too), whether Gemma- and Llama-based
RMs rank each category × prompt valence panel differently (permutation tests over models, FDR across panels; the
ANOVA and the authors' mixed model beside them), and whether computed scores point the published way; big_two adds
where 'love' and 'freedom' rank and the family × category × valence interaction, moral_foundations the panels with
virtue and vice pooled per foundation. Each section is built where the chapter computes it; its sentences are
rendered from it (``prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.value_profiles.results`
builds them and re-exports them)."""
from __future__ import annotations

from typing import Literal

from rmbook.analysis.choices import PUBLISHED_OR_COMPUTE
from rmlib.storage import Num, Record, Section, Table
from rmbook.results import ChapterResults

__all__ = ["CategoryPanel", "FoundationPanel", "AnovaTerm", "MixedTerm", "MixedModel", "PanelLine", "AnovaLine",
           "MixedThreeWay", "Mark", "Direction", "FamilySummary", "FoundationSummary", "ComputedScores", "Scored",
           "LeftOut", "DirectionAgreement", "WordRank", "NamedRanks", "FamilyOrder", "WordPair", "ThreeWayTerm",
           "InteractionTest", "ValueProfilesResults", "ALPHA"]


ALPHA = 0.05  # a p below this is "p < 0.05" (before correction), and a clear interaction


class _Panel(Record):
    valence: str
    difference: Num  # first family minus second, in median rank (lower = ranked higher)
    p: Num
    p_fdr: Num
    reject: bool


class CategoryPanel(_Panel):
    """One category × prompt valence panel: the two families compared by a permutation Welch test."""

    category: str


class FoundationPanel(_Panel):
    """One foundation × prompt valence panel (virtue and vice pooled)."""

    foundation: str


class AnovaTerm(Section):
    F: Num
    df: Num
    df_resid: Num
    p: Num
    partial_eta_sq: Num


class MixedTerm(Section):
    estimate: Num
    ci_low: Num
    ci_high: Num
    p: Num


class MixedModel(Section):
    """median_rank ~ family × category × valence + (1 | model), prompts as replicates."""

    converged: bool
    n_obs: int
    n_groups: int
    group_var: Num  # the random intercept's variance
    terms: dict[str, MixedTerm]


class PanelLine(Section):
    """One of the panels with the smallest p, as the findings spell it out."""

    where: str  # the panel's levels, e.g. "Agency, positive"
    higher: str  # the family that ranks it higher (the lower mean median rank)
    mean_a: Num
    mean_b: Num
    t: Num
    p: Num
    p_fdr: Num
    reject: bool


class AnovaLine(AnovaTerm):
    """One ANOVA term the findings state: the first factor, the two factors, the two with model."""

    name: str  # e.g. "category × valence"


class MixedThreeWay(MixedTerm):
    """The mixed model's family × factor × valence term(s): the one, or the largest of several."""

    n_terms: int
    n_below_alpha: int  # terms with p < ALPHA
    term: str


class Mark(Section):
    name: str
    significant: bool  # after FDR


class Direction(Section):
    """Under one prompt valence, the levels each family ranks higher (point estimates)."""

    valence: str
    first: list[Mark]  # the first family ranks these higher
    second: list[Mark]


class FamilySummary(Section):
    """The family tests of one score table (:func:`fam.summarise` of :func:`fam.family_analysis`), with what the
    findings state about them."""

    table: Literal["published", "compute"]
    reward_kinds: list[str]
    pooled: bool = False  # virtue and vice pooled per foundation
    first: str  # the two families compared
    second: str
    alpha: float = ALPHA
    by: list[str]  # the panels' factors, e.g. ["category", "valence"]
    unit: Literal["model", "prompt"]
    models_per_family: dict[str, int]
    n_a: int  # replicates of the first family in a panel (models, or model × prompt rows)
    n_b: int
    min_attainable_p: Num
    n_prompts: int
    n_panels: int
    n_significant_raw: int
    n_significant_fdr: int
    min_p: Num
    min_p_fdr: Num
    panels: list[CategoryPanel]
    significant: list[str]  # the panels significant after FDR, e.g. "Agency, positive"
    smallest: list[PanelLine]  # the TOP_PANELS panels with the smallest p
    directions: list[Direction]
    notes: list[str]
    anova: dict[str, AnovaTerm] | None = None  # None where the ANOVA could not be fitted
    anova_lines: list[AnovaLine] = []
    mixed: MixedModel | None = None
    mixed_three_way: MixedThreeWay | None = None


class FoundationSummary(FamilySummary):
    panels: list[FoundationPanel]


class ComputedScores(Section):
    """The computed table: its models, words and prompts (which ones of the ``n_design`` in the factorial design)."""

    n_models: int
    models: list[str]
    n_words: int
    n_prompts: int
    n_design: int
    positive: list[str]  # the prompts' adjectives
    negative: list[str]
    superlatives: list[str]
    phrasings: list[str]


class Scored(Section):
    """What the chapter scored: the published RMs by family, the computed models, prompts and words."""

    n_published: int
    published_per_family: dict[str, int]
    n_published_prompts: int
    n_published_words: int
    computed: ComputedScores | None = None
    words_per_category: int | None = None
    compute_words_per_category: int | None = None


class LeftOut(Section):
    """The score tables left out of the family tests because they lack one of the two families."""

    first: str
    second: str
    families: dict[str, list[str]]  # per table left out: the families it has


class DirectionAgreement(Section):
    """How many panels of the computed scores point the way the published ones do (like with like)."""

    same: int
    panels: int
    first: str
    second: str
    n_prompts: int
    n_words: int
    n_significant: int  # computed panels significant after FDR
    unit: Literal["model", "prompt"]
    implicit: bool  # the computed scores are LM log-probs


class WordRank(Record):
    """Where one word ranks (1 = highest reward) among the words one published RM scored under one prompt."""

    model: str
    nickname: str
    family: str
    word: str
    rank: Num
    n_words: int


class NamedRanks(Section):
    nickname: str
    first_rank: Num
    second_rank: Num


class FamilyOrder(Section):
    family: str
    n_first_above: int  # models that rank the first word above the second
    n_models: int


class WordPair(Section):
    """Where two words rank for each RM: the named ones, and by base family."""

    first: str
    second: str
    lexicon: str
    scored: bool  # both words are in the run's word list
    n_words: int | None = None
    named: list[NamedRanks] = []
    by_family: list[FamilyOrder] = []


class ThreeWayTerm(MixedTerm):
    """The family × category × valence term of the mixed model."""

    term: str


class InteractionTest(Section):
    """The family × category × valence interaction with models as the replicates (:func:`fam.interaction_test`)."""

    contrast: str
    difference: Num
    p: Num
    n_a: int
    n_b: int
    min_attainable_p: Num
    claimed_sign: Literal[1, -1]
    claimed_way: bool  # the difference has the claimed sign
    significant: bool  # p < ALPHA
    per_model: Table


class ValueProfilesResults(ChapterResults):
    CHAPTERS = ("big_two", "moral_foundations")
    SCHEMA_VERSION = 2  # 2: the sections the sentences are rendered from (fields added only)

    mode: Literal[PUBLISHED_OR_COMPUTE]
    dictionary: Literal["big2", "mfd2"]
    families: list[str]
    scored: Scored
    left_out: LeftOut
    results: dict[Literal["published", "compute"], FamilySummary]  # per score table
    direction_agreement: DirectionAgreement | None = None  # compute mode, with both tables analysed
    # big_two only
    love_freedom: list[WordRank] | None = None
    word_pair: WordPair | None = None
    three_way: ThreeWayTerm | None = None  # None without the published table or a single such term
    three_way_models: InteractionTest | None = None
    # moral_foundations only
    by_foundation: FoundationSummary | None = None
