"""Types only, no builders: the EloEverything misalignment chapter's results: how far each RM's ranking of the items
agrees with people's (Spearman ρ with a Bonett–Wright interval, per model and prompt), which items the models over-
and under-value most and whether that depends on how the models are combined or scored, the rank difference by item
form, and which themes and WordNet supersenses are over-represented among the most undervalued items (per prompt
first, FDR over themes × prompts; pooled second). Each section is built where the chapter computes it, and its
sentences are rendered from it (``rmbook/chapters/elo_misalignment/prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.elo_misalignment.results`
builds them and re-exports them)."""
from __future__ import annotations

from typing import Literal

from rmbook.analysis.choices import AGGREGATES, PUBLISHED_OR_COMPUTE
from rmbook.analysis.results.types.beside import Beside
from rmlib.storage import JsonData, Num, Record, Section, Table
from rmbook.results import ChapterResults

__all__ = ["Agreement", "ThemeByPrompt", "Run", "AgreementSummary", "WeakList", "Robustness", "Band", "Forms",
           "ThemeVerdict", "TopicsResults", "Trajectories", "EloMisalignmentResults"]


class Agreement(Record):
    """One model under one prompt: Spearman ρ with people (Bonett–Wright 95% CI) and Kendall τ."""

    prompt_key: str
    model: str
    rho: Num
    ci_low: Num
    ci_high: Num
    tau: Num


class ThemeByPrompt(Record):
    """One theme among one prompt's most undervalued items (FDR over themes × prompts)."""

    topic: str
    prompt: str
    direction: Literal["over", "under", "none"]
    ratio: Num
    p: Num
    p_fdr: Num
    p_fdr_se: Num  # the Monte Carlo SE of p_fdr (rmlib.stats.enrichment)
    n_flagged: int
    expected: Num
    n_items: int


class Run(Section):
    """What the run compares: how many models, items and prompts, whether human Elo is one rating per item, and
    whether every score is an implicit reward (an LM's log-probability)."""

    n_models: int
    n_items: int
    prompt_keys: list[str]
    n_prompts: int
    human_elo_same_across_prompts: bool
    implicit: bool  # every model's reward kind is an LM's


class AgreementSummary(Section):
    """The model × prompt cells of ρ: the lowest and the highest, the median, and how many intervals exclude 0."""

    n_cells: int
    median_rho: Num
    n_ci_above_0: int
    n_ci_below_0: int  # the model ranks items *against* people
    best_model: str
    best_prompt: str
    best_rho: Num
    worst_model: str
    worst_prompt: str
    worst_rho: Num


class WeakList(Section):
    """A top list whose median and mean versions share fewer than ROBUST_SHARE of their items."""

    prompt_key: str
    direction: str
    shared: int


class Robustness(Section):
    """Whether the top lists depend on the aggregate (median vs mean) or the score method (rank vs z), and the
    pooled extremes (:func:`hr.method_robustness`)."""

    top_k: int
    table: Table  # median vs mean top lists, per prompt and direction
    n_lists: int
    shared_min: int
    shared_max: int
    robust_share: float
    weak: list[WeakList]  # the lists that share fewer than robust_share of top_k
    n_weak: int
    n_items: int  # items in the pooled consensus
    method_rho: Num  # Spearman between the pooled rank and z differences
    overlap_over: float
    overlap_under: float
    most_over: list[str]
    most_under: list[str]


class Band(Section):
    """Rated single words of one valence band: mean rank difference over models and prompts (None: no item)."""

    rank_diff: Num
    n_items: int


class Forms(Section):
    """The rank and z difference by item form (averaged over models and prompts), the most over- and under-valued
    of the forms with at least ``min_items`` items, and positive vs negative words (:func:`hr.form_summary`)."""

    min_items: int
    rank_diff: dict[str, Num]  # per form
    z_diff: dict[str, Num]
    over_form: str
    over_rank_diff: Num
    over_z_diff: Num
    under_form: str
    under_rank_diff: Num
    under_z_diff: Num
    agree_sign: Num  # share of forms whose rank and z differences have the same sign
    positive: Band
    negative: Band


class ThemeVerdict(Section):
    """One theme per prompt, in topic order: the prompts on which it is over- and under-represented, and each
    prompt's test."""

    topic: str
    over: list[str]
    under: list[str]
    cells: list[ThemeByPrompt]


class TopicsResults(Section):
    """The topic test of :func:`hr.undervalued_topics` and the settings that produced it."""

    n_items: int
    n_with_topic: int
    n_flagged: int
    undervalued_share: float
    aggregate: Literal[AGGREGATES]
    strata: int
    n_resamples: int
    no_topic: Table
    themes_by_prompt: list[ThemeByPrompt]
    theme_prompts: JsonData  # {theme: {"over": [prompts], "under": [prompts]}}
    themes_fdr_family: str
    themes: Table  # pooled over prompts (secondary), in topic order
    supersenses: Table
    # what the sentences state
    share_with_topic: Num
    n_without_topic: int
    n_not_wordnet_noun: int
    n_no_word: int
    no_topic_flagged: int  # items without a topic among the most undervalued, vs expected
    no_topic_expected: Num
    no_topic_p_fdr: Num
    n_sexuality: int  # items in human sexuality
    n_sexuality_other_word: int  # ... through a word of the title other than its head
    n_supersenses: int
    supersenses_differ: Table  # the supersenses significant after FDR: topic, direction, n_flagged, expected
    n_supersenses_differ: int
    n_theme_tests: int  # theme x prompt tests (0: no per-prompt consensus)
    n_themes: int
    n_prompts: int
    by_theme: list[ThemeVerdict]
    mixed: list[str]  # themes over-represented on one prompt and under- on another
    n_mixed: int


class Trajectories(Section):
    """The items drawn in the rank-trajectory chart, and how much an item's rank percentile varies over models."""

    prompt_key: str
    n_items: int
    median_sd: Num  # median over all items of the SD of the models' rank percentiles
    widest_item: str | None  # None with one model: no spread over models
    widest_sd: Num


class EloMisalignmentResults(ChapterResults):
    CHAPTERS = ("elo_misalignment",)
    # 2: topics.n_permutations is topics.n_resamples (one name for the resampling count)
    # 3: the sentences' sections (run, agreement_summary, robustness, forms, topics, trajectories); the run's, the
    #    agreement's, the robustness', the forms' and the trajectories' top-level keys move into them
    # 4: topics.themes_by_prompt[].p_fdr_se, the Monte Carlo SE the claims page checks for a straddle (#63 item 7)
    SCHEMA_VERSION = 4

    mode: Literal[PUBLISHED_OR_COMPUTE]
    models: list[str]
    reward_kinds: dict[str, str]
    prompt_keys: list[str]
    run: Run
    interval: str
    agreement: list[Agreement]
    agreement_summary: AgreementSummary
    aggregate: Literal[AGGREGATES]
    robustness: Robustness
    forms: Forms
    topics: TopicsResults
    trajectories: Trajectories
    beside: Beside | None = None  # compute mode: each computed model placed among the paper RMs (rmbook.analysis.beside)
