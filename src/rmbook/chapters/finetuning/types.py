"""Types only, no builders: the finetuning chapter's results: the RMs trained here from each base on identical pairs
(their runs, held-out metrics per checkpoint, the Agency − Communion imprint against their base LMs, the base and
data-source ANOVAs and the data-quantity ablation), and the durability of the base families' order, in the published
checkpoint files (judged run by run) and across this chapter's seeds and steps. Each section is built where the
chapter computes it, and its sentences are rendered from it (``rmbook/chapters/finetuning/prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.finetuning.results`
builds them and re-exports them)."""
from __future__ import annotations

from rmlib.storage import JsonData, Num, Record, Section, Table
from rmbook.results import ChapterResults

__all__ = ["Metric", "Training", "Evaluation", "PromptValue", "GapAnova", "Imprint", "SpreadPair", "SourceEffect",
           "Ablation", "Quantity", "FamilyChange", "Trajectory", "AccuracyVariance", "JudgedRun", "OrderChange",
           "PublishedDurability", "SeedOrder", "StepOrder", "Durability", "BaseEffect", "FinetuningResults"]


class Metric(Record):
    """One checkpoint's held-out metrics (:func:`rmbook.chapters.finetuning.analysis.evaluate_runs`)."""

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
    """The one-way ANOVA of the gap under one prompt (:func:`rmbook.chapters.finetuning.analysis.one_way_gap_anova`)."""

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
    """One published run with several checkpoints, judged by :func:`rmbook.chapters.finetuning.durability.judge_run`."""

    run: str
    holds: bool
    tied: bool  # level at the final checkpoint: neither holds nor fails
    flip_step: int | None  # the checkpoint where the order turned round, None when it never did
    flipped_from: int | None
    persistent: bool


class OrderChange(Section):
    """A published run whose base-family order changes between its first and a later checkpoint."""

    run: str
    first_order: str
    final_order: str


class PublishedDurability(Section):
    """The published durability counts (:func:`rmbook.chapters.finetuning.durability.published_durability`)."""

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
    n_runs_tied: int  # tied at the final checkpoint: neither held nor failed
    failed_runs: list[str]
    largest_run: str | None
    largest_quantity_k: int | None
    largest_run_holds: bool | None
    largest_run_tied: bool | None  # level at its final checkpoint (and none of its size fails): neither holds nor fails
    final_runs: Table
    final_n_failed: int
    final_n_tied: int
    final_failed_runs: list[str]
    final_largest_run: str | None
    final_largest_quantity_k: int | None
    final_largest_run_holds: bool | None
    final_largest_run_tied: bool | None
    across_sizes: JsonData  # rmbook.chapters.finetuning.durability.order_stability across the UltraFeedback sizes
    runs: Table  # rmbook.chapters.finetuning.durability.published_run_orders
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
    ours_checkpoints: list[StepOrder]  # rmbook.chapters.finetuning.durability.step_orders
    ours_n_checkpoints: int | None  # the first seed's checkpoints; None when it has one


class BaseEffect(Section):
    """Under how many prompts the one-way ANOVA over seeds finds the base explains the gap (p < 0.05)."""

    n_prompts: int
    n_prompts_significant: int


class FinetuningResults(ChapterResults):
    CHAPTERS = ("finetuning",)
    # 2: the sentences' numbers are sections; same_data -> training.same_data, reward_kinds ->
    # evaluation.reward_kinds, spearman_acc_var -> accuracy_variance.rho. 3: training.renamed. 4: a tied run is
    # neither held nor failed (durability.published.n_runs_tied, final_n_tied, runs_judged[].tied; #63 item 6). 5: so
    # is a tied largest run (durability.published.largest_run_tied, final_largest_run_tied; #63 item 6)
    SCHEMA_VERSION = 5

    runs: Table  # rmbook.chapters.finetuning.analysis.training_summary
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
