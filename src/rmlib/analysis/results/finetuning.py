"""The finetuning chapter's results: the RMs trained here from each base on identical pairs (their runs, held-out
metrics per checkpoint, the Agency − Communion imprint against their base LMs, the base and data-source ANOVAs and
the data-quantity ablation), and the durability of the base families' order, in the published checkpoint files
(judged run by run) and across this chapter's seeds and steps. Each section is built where the chapter computes it,
and its sentences are rendered from it (``rmlib/report/prose/templates/finetuning.md.j2``)."""
from __future__ import annotations

import pandas as pd

from rmlib.storage import ChapterResults, JsonData, Num, Record, Section, Table

__all__ = ["Metric", "Training", "Evaluation", "PromptValue", "GapAnova", "Imprint", "SpreadPair", "SourceEffect",
           "Ablation", "Quantity", "FamilyChange", "Trajectory", "AccuracyVariance", "JudgedRun", "OrderChange",
           "PublishedDurability", "SeedOrder", "StepOrder", "Durability", "BaseEffect", "FinetuningResults",
           "training", "evaluation", "imprint", "ablation", "trajectory", "accuracy_variance", "published",
           "durability", "chapter_results"]


class Metric(Record):
    """One checkpoint's held-out metrics (:func:`rmlib.analysis.finetuning.evaluate_runs`)."""

    run: str
    step: int
    accuracy: Num


class Training(Section):
    """What the main runs trained on, and how their loss fell."""

    n_runs: int
    n_seeds: int
    n_bases: int
    same_data: bool  # within each seed every base trained on the same pairs (one data hash)
    steps: int
    batch_size: int
    n_pairs: int
    max_len: int
    first_loss: Num  # mean over the main runs of the loss in the first quarter of the steps
    last_loss: Num  # ... and in the last
    share_truncated: Num  # mean share of the pairs truncated at max_len
    # runs trained under their name plus their run hash, because the name held a run of another config
    # (rmlib.train.own_name): a rerun with another learning rate, length, precision or layer count
    renamed: list[str] = []


class Evaluation(Section):
    """The final checkpoints' held-out accuracy range, on how many test pairs, and the reward kinds shown."""

    accuracy_min: Num
    accuracy_max: Num
    n_test_min: int
    n_test_max: int
    reward_kinds: list[str]


class PromptValue(Section):
    """One number under one prompt (a spread, a correlation)."""

    prompt_label: str
    value: Num


class GapAnova(Section):
    """The one-way ANOVA of the gap under one prompt (:func:`rmlib.analysis.finetuning.one_way_gap_anova`)."""

    prompt_label: str
    df: str
    F: Num
    p: Num
    eta_sq: Num


class Imprint(Section):
    """How many (base, prompt) cells keep their base LM's order, how far the bases spread, the base ANOVA."""

    first: str  # the gap is first minus second category
    second: str
    n_same_sign: int
    n_cells: int
    spread: list[PromptValue]  # per prompt: max minus min of the RMs' mean gap across bases
    anova: list[GapAnova]  # per prompt; empty with one seed per base


class SpreadPair(Section):
    prompt_label: str
    by_source: Num  # the first base's mean gap, max minus min across sources
    by_base: Num  # ... and across bases on identical data


class SourceEffect(Section):
    prompt_label: str
    eta_sq_source: Num
    p_source: Num
    eta_sq_base: Num
    p_base: Num


class Ablation(Section):
    """The data-source ablation of the first base: spreads across sources vs bases, the two ANOVAs' effects."""

    first_base: str
    spreads: list[SpreadPair]  # the prompts with both spreads
    effects: list[SourceEffect]  # the prompts with both ANOVAs (empty without them)


class Quantity(Section):
    """The data-quantity ablation: the gap's Spearman correlation with the number of training pairs."""

    ran: bool  # two or more training-set sizes
    n_sizes: int
    sizes: list[int]  # ascending
    rho: list[PromptValue]


class FamilyChange(Section):
    family: str
    change: Num


class Trajectory(Section):
    """How far training moved our gaps, the quantity ablation, and the published change with data size."""

    moved_mean: Num  # mean |gap change| from the first to the last saved checkpoint
    moved_max: Num
    quantity: Quantity
    published_change: list[FamilyChange]  # per family: UltraFeedback largest minus smallest set, final checkpoint


class AccuracyVariance(Section):
    """Spearman's rho of accuracy and whitened variance over checkpoints; the most accurate and the highest-variance
    checkpoint."""

    n_checkpoints: int
    rho: Num  # None with too few distinct checkpoints
    p: Num
    best_accuracy_model: str
    best_accuracy: Num
    best_accuracy_var: Num
    best_var_model: str
    best_var_accuracy: Num
    best_var: Num
    same_checkpoint: bool  # the most accurate checkpoint is also the highest-variance one


class JudgedRun(Record):
    """One published run with several checkpoints, judged by :func:`rmlib.analysis.durability.judge_run`."""

    run: str
    holds: bool
    flip_step: int | None  # the checkpoint where the order turned round, None when it never did
    flipped_from: int | None
    persistent: bool


class OrderChange(Section):
    """A published run whose base-family order changes between its first and a later checkpoint."""

    run: str
    first_order: str
    final_order: str


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
    order_changes: list[OrderChange]  # the runs_with_flip runs, first order -> final order


class SeedOrder(Record):
    """Whether this chapter's seeds order the bases alike under one prompt (:func:`durability.seed_orders`)."""

    prompt_label: str
    n_seeds: int
    modal_order_exists: bool
    modal_order: str | None  # None when no order is strictly most common
    n_seeds_modal_order: int | None
    n_distinct_orders: int
    all_orders_differ: bool  # every seed gives a different order
    kendall_w: Num
    pairs_inconsistent: int  # base pairs not ordered alike in every seed
    pairs: int


class StepOrder(Record):
    """Whether the first seed's run keeps its base order across checkpoints under one prompt
    (:func:`durability.step_orders`)."""

    prompt_label: str
    n_blocks: int
    kendall_w: Num
    n_pair_flips: int
    n_pairs: int


class Durability(Section):
    published: PublishedDurability
    ours: SeedOrder | None  # the positive prompt's row (else the first), None with a single seed
    ours_by_prompt: list[SeedOrder]
    ours_checkpoints: list[StepOrder]  # rmlib.analysis.durability.step_orders
    ours_n_checkpoints: int | None  # the first seed's checkpoints; None when it has one


class BaseEffect(Section):
    """Under how many prompts the one-way ANOVA over seeds finds the base explains the gap (p < 0.05)."""

    n_prompts: int
    n_prompts_significant: int


class FinetuningResults(ChapterResults):
    CHAPTERS = ("finetuning",)
    # 2: the sentences' numbers are sections; same_data -> training.same_data, reward_kinds ->
    # evaluation.reward_kinds, spearman_acc_var -> accuracy_variance.rho. 3: training.renamed
    SCHEMA_VERSION = 3

    runs: Table  # rmlib.analysis.finetuning.training_summary
    training: Training
    metrics: list[Metric]
    evaluation: Evaluation
    imprint: Table
    imprint_found: Imprint
    base_anova: Table
    source_anova: Table
    ablation: Ablation | None  # None without ablation sources
    quantity: Table
    trajectory: Trajectory
    accuracy_variance: AccuracyVariance
    n_published_final: int
    base_effect: BaseEffect | None  # None without a base ANOVA (a single seed)
    durability: Durability


def _per_prompt(values: pd.Series) -> list[PromptValue]:
    return [PromptValue(prompt_label=str(k), value=v) for k, v in values.items()]


def training(n_runs: int, seeds: list, bases: list, same_data: bool, main: pd.DataFrame, batch_size: int,
             n_pairs: int, max_len: int, renamed: list[str] = ()) -> Training:
    """The section of the main runs' rows of :func:`rmlib.analysis.finetuning.training_summary` (``main``);
    ``renamed``: :func:`rmlib.analysis.finetuning.renamed_runs`."""
    return Training(n_runs=n_runs, n_seeds=len(seeds), n_bases=len(bases), same_data=bool(same_data),
                    steps=int(main["steps"].iloc[0]), batch_size=batch_size, n_pairs=n_pairs, max_len=max_len,
                    first_loss=main["first_loss"].mean(), last_loss=main["last_loss"].mean(),
                    share_truncated=main["share_truncated"].mean(), renamed=list(renamed))


def evaluation(final: pd.DataFrame, kinds) -> Evaluation:
    """The section of the final checkpoints' metrics (:func:`rmlib.analysis.finetuning.final_rows`)."""
    return Evaluation(accuracy_min=final["accuracy"].min(), accuracy_max=final["accuracy"].max(),
                      n_test_min=int(final["n_test"].min()), n_test_max=int(final["n_test"].max()),
                      reward_kinds=list(kinds))


def _anova(rows: pd.DataFrame) -> list[GapAnova]:
    return [GapAnova(prompt_label=r.prompt_label, df=r.df, F=r.F, p=r.p, eta_sq=r.eta_sq) for r in rows.itertuples()]


def imprint(agg: pd.DataFrame, base_anova: pd.DataFrame, spread: pd.Series, first: str, second: str) -> Imprint:
    """The section of :func:`rmlib.analysis.finetuning.imprint_table` (``agg``), the base ANOVA and the bases'
    spread (:func:`rmlib.analysis.finetuning.spread`)."""
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
    """The section of :func:`rmlib.analysis.finetuning.first_to_last` (``moved``), the quantity gaps and their
    :func:`~rmlib.analysis.finetuning.gap_correlation` (``q_rho``), and
    :func:`~rmlib.analysis.finetuning.published_quantity_change`."""
    sizes = sorted(int(n) for n in q_gap["n_pairs"].unique())
    quantity = Quantity(ran=len(sizes) >= 2, n_sizes=len(sizes), sizes=sizes, rho=_per_prompt(q_rho))
    return Trajectory(moved_mean=moved["gap"].abs().mean(), moved_max=moved["gap"].abs().max(), quantity=quantity,
                      published_change=[FamilyChange(family=str(k), change=v) for k, v in published_change.items()])


def accuracy_variance(metrics: pd.DataFrame, rho: float, p: float) -> AccuracyVariance:
    """The section of :func:`rmlib.analysis.finetuning.accuracy_variance_correlation` over ``metrics``."""
    acc = metrics.loc[metrics["accuracy"].idxmax()]
    var = metrics.loc[metrics["reward_var_whitened"].idxmax()]
    return AccuracyVariance(n_checkpoints=len(metrics), rho=rho, p=p, best_accuracy_model=acc["model"],
                            best_accuracy=acc["accuracy"], best_accuracy_var=acc["reward_var_whitened"],
                            best_var_model=var["model"], best_var_accuracy=var["accuracy"],
                            best_var=var["reward_var_whitened"], same_checkpoint=bool(acc["model"] == var["model"]))


def published(durable: dict, runs: pd.DataFrame) -> PublishedDurability:
    """The section of :func:`rmlib.analysis.durability.published_durability` (``durable``) and the run orders it
    judged (:func:`~rmlib.analysis.durability.published_run_orders`)."""
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
    (:func:`rmlib.analysis.durability.seed_orders`, :func:`~rmlib.analysis.durability.step_orders`)."""
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
