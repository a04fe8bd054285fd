"""The EloEverything misalignment chapter's results: how far each RM's ranking of the items agrees with people's
(Spearman ρ with a Bonett–Wright interval, per model and prompt), which items the models over- and under-value most
and whether that depends on how the models are combined or scored, the rank difference by item form, and which
themes and WordNet supersenses are over-represented among the most undervalued items (per prompt first, FDR over
themes × prompts; pooled second)."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis import human_ratings as hr
from rmlib.storage import ChapterResults, JsonData, Num, Record, Section, Table

__all__ = ["Agreement", "ThemeByPrompt", "TopicsResults", "EloMisalignmentResults", "chapter_results"]


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
    n_flagged: int
    expected: Num
    n_items: int


class TopicsResults(Section):
    """The topic test of :func:`hr.undervalued_topics` and the settings that produced it."""

    n_items: int
    n_with_topic: int
    n_flagged: int
    undervalued_share: float
    strata: int
    n_resamples: int
    no_topic: Table
    themes_by_prompt: list[ThemeByPrompt]
    theme_prompts: JsonData  # {theme: {"over": [prompts], "under": [prompts]}}
    themes_fdr_family: str
    themes: Table  # pooled over prompts (secondary)
    supersenses: Table


class EloMisalignmentResults(ChapterResults):
    CHAPTERS = ("elo_misalignment",)
    SCHEMA_VERSION = 2  # 2: topics.n_permutations is topics.n_resamples (one name for the resampling count)

    mode: Literal[hr.MODES]
    models: list[str]
    reward_kinds: dict[str, str]
    prompt_keys: list[str]
    n_items: int
    human_elo_same_across_prompts: bool
    interval: str
    agreement: list[Agreement]
    agreement_median_rho: Num
    n_agreement_cells: int
    n_agreement_ci_above_0: int
    aggregate: Literal[hr.AGGREGATES]
    aggregate_robustness: Table  # median vs mean top lists, per prompt and direction
    method_rho: Num  # Spearman between the pooled rank and z differences
    overlap_over: float
    overlap_under: float
    most_over: list[str]
    most_under: list[str]
    form_rank_diff: dict[str, Num]
    form_z_diff: dict[str, Num]
    topics: TopicsResults
    n_trajectory_items: int


def chapter_results(mode: str, elo: hr.EloScores, agreement: pd.DataFrame, aggregate: str, rob: dict, fs: dict,
                    tp: dict, traj: dict, *, share: float, strata: int,
                    n_resamples: int) -> EloMisalignmentResults:
    """The chapter's results from its scores (:func:`hr.elo_scores`), :func:`hr.human_agreement`,
    :func:`hr.method_robustness` (``rob``), :func:`hr.form_summary` (``fs``), :func:`hr.undervalued_topics` (``tp``,
    run with ``share``, ``strata`` and ``n_resamples``) and :func:`hr.rank_trajectories` (``traj``)."""
    return EloMisalignmentResults(
        mode=mode, models=elo.models, reward_kinds=elo.kinds, prompt_keys=elo.prompt_keys, n_items=len(elo.items),
        human_elo_same_across_prompts=elo.same_elo, interval="Bonett-Wright",
        agreement=agreement[["prompt_key", "model", "rho", "ci_low", "ci_high", "tau"]],
        agreement_median_rho=agreement["rho"].median(), n_agreement_cells=len(agreement),
        n_agreement_ci_above_0=int((agreement["ci_low"] > 0).sum()), aggregate=aggregate,
        aggregate_robustness=rob["robust"],
        **{k: rob[k] for k in ("method_rho", "overlap_over", "overlap_under", "most_over", "most_under")},
        form_rank_diff=fs["form_mean"]["rank_diff"].to_dict(), form_z_diff=fs["form_mean"]["z_diff"].to_dict(),
        topics=hr.topics_summary(tp, share=share, strata=strata, n_resamples=n_resamples),
        n_trajectory_items=len(traj["chosen"]))
