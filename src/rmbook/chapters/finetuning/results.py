"""The finetuning chapter's results: the RMs trained here from each base on identical pairs (their runs, held-out
metrics per checkpoint, the Agency − Communion imprint against their base LMs, the base and data-source ANOVAs and
the data-quantity ablation), and the durability of the base families' order, in the published checkpoint files
(judged run by run) and across this chapter's seeds and steps. Each section is built where the chapter computes it,
and its sentences are rendered from it (``rmbook/chapters/finetuning/prose.md.j2``)."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.finetuning.types import (Metric, Training, Evaluation, PromptValue, GapAnova, Imprint,
                                              SpreadPair, SourceEffect, Ablation, Quantity, FamilyChange, Trajectory,
                                              AccuracyVariance, JudgedRun, OrderChange, PublishedDurability,
                                              SeedOrder, StepOrder, Durability, BaseEffect, FinetuningResults)

__all__ = ["Metric", "Training", "Evaluation", "PromptValue", "GapAnova", "Imprint", "SpreadPair", "SourceEffect",
           "Ablation", "Quantity", "FamilyChange", "Trajectory", "AccuracyVariance", "JudgedRun", "OrderChange",
           "PublishedDurability", "SeedOrder", "StepOrder", "Durability", "BaseEffect", "FinetuningResults",
           "training", "evaluation", "imprint", "ablation", "trajectory", "accuracy_variance", "published",
           "durability", "chapter_results"]


def _per_prompt(values: pd.Series) -> list[PromptValue]:
    return [PromptValue(prompt_label=str(k), value=v) for k, v in values.items()]


def training(n_runs: int, seeds: list, bases: list, same_data: bool, main: pd.DataFrame, batch_size: int,
             n_pairs: int, max_len: int, renamed: list[str] = ()) -> Training:
    """The section of the main runs' rows of :func:`rmbook.chapters.finetuning.analysis.training_summary` (``main``);
    ``renamed``: :func:`rmbook.chapters.finetuning.analysis.renamed_runs`."""
    return Training(n_runs=n_runs, n_seeds=len(seeds), n_bases=len(bases), same_data=bool(same_data),
                    steps=int(main["steps"].iloc[0]), batch_size=batch_size, n_pairs=n_pairs, max_len=max_len,
                    first_loss=main["first_loss"].mean(), last_loss=main["last_loss"].mean(),
                    share_truncated=main["share_truncated"].mean(), renamed=list(renamed))


def evaluation(final: pd.DataFrame, kinds) -> Evaluation:
    """The section of the final checkpoints' metrics (:func:`rmbook.chapters.finetuning.analysis.final_rows`)."""
    return Evaluation(accuracy_min=final["accuracy"].min(), accuracy_max=final["accuracy"].max(),
                      n_test_min=int(final["n_test"].min()), n_test_max=int(final["n_test"].max()),
                      reward_kinds=list(kinds))


def _anova(rows: pd.DataFrame) -> list[GapAnova]:
    return [GapAnova(prompt_label=r.prompt_label, df=r.df, F=r.F, p=r.p, eta_sq=r.eta_sq) for r in rows.itertuples()]


def imprint(agg: pd.DataFrame, base_anova: pd.DataFrame, spread: pd.Series, first: str, second: str) -> Imprint:
    """The section of :func:`rmbook.chapters.finetuning.analysis.imprint_table` (``agg``), the base ANOVA and the bases'
    spread (:func:`rmbook.chapters.finetuning.analysis.spread`)."""
    return Imprint(first=first, second=second, n_same_sign=int(agg["same_sign_as_base"].sum()), n_cells=len(agg),
                   spread=_per_prompt(spread), anova=_anova(base_anova) if len(base_anova) else [])


def ablation(by_source: pd.Series, by_base: pd.Series, source_anova: pd.DataFrame, base_anova: pd.DataFrame,
             first_base: str) -> Ablation:
    """The section of the source ablation: the spreads across sources and across bases, and both ANOVAs."""
    spreads = [SpreadPair(prompt_label=str(k), by_source=by_source[k], by_base=by_base[k])
               for k in by_source.index if k in by_base.index]
    effects = []
    if len(source_anova) and len(base_anova):
        both = source_anova.merge(base_anova, on="prompt_label", suffixes=("_source", "_base"))
        effects = [SourceEffect(prompt_label=r.prompt_label, eta_sq_source=r.eta_sq_source, p_source=r.p_source,
                                eta_sq_base=r.eta_sq_base, p_base=r.p_base) for r in both.itertuples()]
    return Ablation(first_base=first_base, spreads=spreads, effects=effects)


def trajectory(moved: pd.DataFrame, q_gap: pd.DataFrame, q_rho: pd.Series, published_change: pd.Series) -> Trajectory:
    """The section of :func:`rmbook.chapters.finetuning.analysis.first_to_last` (``moved``), the quantity gaps and their
    :func:`~rmbook.chapters.finetuning.analysis.gap_correlation` (``q_rho``), and
    :func:`~rmbook.chapters.finetuning.analysis.published_quantity_change`."""
    sizes = sorted(int(n) for n in q_gap["n_pairs"].unique())
    quantity = Quantity(ran=len(sizes) >= 2, n_sizes=len(sizes), sizes=sizes, rho=_per_prompt(q_rho))
    return Trajectory(moved_mean=moved["gap"].abs().mean(), moved_max=moved["gap"].abs().max(), quantity=quantity,
                      published_change=[FamilyChange(family=str(k), change=v) for k, v in published_change.items()])


def accuracy_variance(metrics: pd.DataFrame, rho: float, p: float) -> AccuracyVariance:
    """The section of :func:`rmbook.chapters.finetuning.analysis.accuracy_variance_correlation` over ``metrics``."""
    acc = metrics.loc[metrics["accuracy"].idxmax()]
    var = metrics.loc[metrics["reward_var_whitened"].idxmax()]
    return AccuracyVariance(n_checkpoints=len(metrics), rho=rho, p=p, best_accuracy_model=acc["model"],
                            best_accuracy=acc["accuracy"], best_accuracy_var=acc["reward_var_whitened"],
                            best_var_model=var["model"], best_var_accuracy=var["accuracy"],
                            best_var=var["reward_var_whitened"], same_checkpoint=bool(acc["model"] == var["model"]))


def published(durable: dict, runs: pd.DataFrame) -> PublishedDurability:
    """The section of :func:`rmbook.chapters.finetuning.durability.published_durability` (``durable``) and the run
    orders it judged (:func:`~rmbook.chapters.finetuning.durability.published_run_orders`)."""
    flipped = runs[(runs["checkpoints"] > 1) & (runs["pair_flips"] > 0)]
    return PublishedDurability(**durable, order_changes=[
        OrderChange(run=r.run, first_order=r.first_order, final_order=r.final_order) for r in flipped.itertuples()])


def _ours(seeds: list[SeedOrder]) -> SeedOrder | None:
    """The across-seed order the claims page judges: the positive prompt's row, else the first; None without one."""
    pos = [s for s in seeds if s.prompt_label == "positive"]
    return (pos or seeds or [None])[0]


def durability(published_section: PublishedDurability, seed_table: pd.DataFrame,
               step_orders: list[dict]) -> Durability:
    """The section of the published durability and this chapter's seed and step orders
    (:func:`rmbook.chapters.finetuning.durability.seed_orders`,
    :func:`~rmbook.chapters.finetuning.durability.step_orders`)."""
    seeds = [SeedOrder(**r, all_orders_differ=r["n_distinct_orders"] == r["n_seeds"])
             for r in seed_table.to_dict("records")]
    return Durability(published=published_section, ours=_ours(seeds), ours_by_prompt=seeds,
                      ours_checkpoints=step_orders,
                      ours_n_checkpoints=step_orders[0]["n_blocks"] if step_orders else None)


def chapter_results(summary: pd.DataFrame, train: Training, metrics: pd.DataFrame, evaluated: Evaluation,
                    imprint_table: pd.DataFrame, imprint_found: Imprint, base_anova: pd.DataFrame,
                    source_anova: pd.DataFrame, source_ablation: Ablation | None, quantity: pd.DataFrame,
                    traj: Trajectory, acc_var: AccuracyVariance, published_final: pd.DataFrame,
                    durable: Durability) -> FinetuningResults:
    """The chapter's results from its sections and the tables its cells computed (training summary, metrics,
    imprint, ANOVAs, the quantity gaps, the published final gaps)."""
    base_effect = None
    if len(base_anova):
        base_effect = BaseEffect(n_prompts=len(base_anova), n_prompts_significant=int((base_anova["p"] < 0.05).sum()))
    return FinetuningResults(
        runs=summary, training=train, metrics=metrics, evaluation=evaluated, imprint=imprint_table,
        imprint_found=imprint_found, base_anova=base_anova, source_anova=source_anova, ablation=source_ablation,
        quantity=quantity, trajectory=traj, accuracy_variance=acc_var, n_published_final=len(published_final),
        base_effect=base_effect, durability=durable)
