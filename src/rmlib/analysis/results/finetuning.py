"""The finetuning chapter's results: the RMs trained here from each base on identical pairs (their runs, held-out
metrics per checkpoint, the Agency − Communion imprint against their base LMs, the base and data-source ANOVAs and
the data-quantity ablation), and the durability of the base families' order, in the published checkpoint files
(judged run by run) and across this chapter's seeds and steps."""
from __future__ import annotations

import pandas as pd

from rmlib.storage import ChapterResults, JsonData, Num, Record, Section, Table

__all__ = ["Metric", "JudgedRun", "PublishedDurability", "SeedOrder", "Durability", "BaseEffect",
           "FinetuningResults", "chapter_results"]


class Metric(Record):
    """One checkpoint's held-out metrics (:func:`rmlib.analysis.finetuning.evaluate_runs`)."""

    run: str
    step: int
    accuracy: Num


class JudgedRun(Record):
    """One published run with several checkpoints, judged by :func:`rmlib.analysis.durability.judge_run`."""

    run: str
    holds: bool
    flip_step: int | None  # the checkpoint where the order turned round, None when it never did
    flipped_from: int | None
    persistent: bool


class PublishedDurability(Section):
    """The published durability counts (:func:`rmlib.analysis.durability.published_durability`)."""

    final_claimed_holds: int
    final_n: int
    checkpoints_claimed_holds: int
    checkpoints_n: int
    runs_with_flip: int
    n_runs: int
    runs_judged: list[JudgedRun]
    n_runs_judged: int
    n_runs_held: int
    n_runs_failed: int
    failed_runs: list[str]
    largest_run: str | None
    largest_quantity_k: int | None
    largest_run_holds: bool | None
    final_runs: Table
    final_n_failed: int
    final_failed_runs: list[str]
    final_largest_run: str | None
    final_largest_quantity_k: int | None
    final_largest_run_holds: bool | None
    across_sizes: JsonData  # rmlib.analysis.durability.order_stability across the UltraFeedback sizes
    runs: Table  # rmlib.analysis.durability.published_run_orders


class SeedOrder(Record):
    """Whether this chapter's seeds order the bases alike under one prompt (:func:`durability.seed_orders`)."""

    prompt_label: str
    n_seeds: int
    modal_order_exists: bool
    modal_order: str | None  # None when no order is strictly most common
    n_seeds_modal_order: int | None
    n_distinct_orders: int
    kendall_w: Num


class Durability(Section):
    published: PublishedDurability
    ours: SeedOrder | None  # the positive prompt's row (else the first), None with a single seed
    ours_by_prompt: Table
    ours_checkpoints: Table  # rmlib.analysis.durability.step_orders


class BaseEffect(Section):
    """Under how many prompts the one-way ANOVA over seeds finds the base explains the gap (p < 0.05)."""

    n_prompts: int
    n_prompts_significant: int


class FinetuningResults(ChapterResults):
    CHAPTERS = ("finetuning",)

    runs: Table  # rmlib.analysis.finetuning.training_summary
    same_data: bool
    metrics: list[Metric]
    imprint: Table
    base_anova: Table
    source_anova: Table
    quantity: Table
    reward_kinds: list[str]
    spearman_acc_var: Num
    n_published_final: int
    base_effect: BaseEffect | None  # None without a base ANOVA (a single seed)
    durability: Durability


def _ours(seed_table: pd.DataFrame) -> dict | None:
    """The across-seed order the claims page judges: the positive prompt's row, else the first; None without one."""
    if not len(seed_table):
        return None
    pos = seed_table[seed_table["prompt_label"] == "positive"]
    return (pos if len(pos) else seed_table).iloc[0].to_dict()


def chapter_results(summary: pd.DataFrame, same_data: bool, metrics: pd.DataFrame, imprint: pd.DataFrame,
                    base_anova: pd.DataFrame, source_anova: pd.DataFrame, quantity: pd.DataFrame, reward_kinds,
                    spearman_acc_var: float, published_final: pd.DataFrame, published_durability: dict,
                    seed_table: pd.DataFrame, step_orders: list[dict]) -> FinetuningResults:
    """The chapter's results from what its cells computed (training summary, metrics, imprint, ANOVAs, the quantity
    gaps, the published final gaps and durability, the seed and step orders)."""
    base_effect = None
    if len(base_anova):
        base_effect = BaseEffect(n_prompts=len(base_anova), n_prompts_significant=int((base_anova["p"] < 0.05).sum()))
    return FinetuningResults(
        runs=summary, same_data=bool(same_data), metrics=metrics, imprint=imprint, base_anova=base_anova,
        source_anova=source_anova, quantity=quantity, reward_kinds=list(reward_kinds),
        spearman_acc_var=spearman_acc_var, n_published_final=len(published_final), base_effect=base_effect,
        durability=Durability(published=published_durability, ours=_ours(seed_table), ours_by_prompt=seed_table,
                              ours_checkpoints=step_orders))
