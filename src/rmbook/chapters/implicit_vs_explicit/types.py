"""Types only, no builders: the implicit_vs_explicit chapter's results: one EX-RM (Bradley–Terry head) and one IM-RM
(DPO) trained from one base on identical pairs; their accuracy per evaluation set (held-out pairs, their token-level
rewrites, other sources), the paired IM − EX gaps with bootstrap intervals that the claims page judges, the overlap
correlations, DPO's likelihood-displacement record (along training and on held-out pairs) and the chapter's verdict
on the published pattern. Each section is built where the chapter computes it, and its sentences are rendered from
it (``rmbook/chapters/implicit_vs_explicit/prose.md.j2``).

The claims page reads these without importing the chapter's analysis
(:mod:`rmbook.chapters.implicit_vs_explicit.results` builds them and re-exports them)."""
from __future__ import annotations

from typing import Literal

from rmlib.storage import JsonData, Num, Record, Section, Table
from rmbook.results import ChapterResults

__all__ = ["Gap", "HeldoutLogratio", "BelowChance", "Training", "Shift", "AccuracyLine", "Accuracy", "Overlap",
           "Displacement", "Heldout", "DomainGap", "OpenHalf", "Verdict", "ImplicitVsExplicitResults"]


class Gap(Record):
    """IM − EX accuracy on one evaluation set (or the difference of their drops, ``token_shift_drop``), paired
    bootstrap over pairs (:func:`rmbook.chapters.implicit_vs_explicit.analysis.paired_gaps`)."""

    eval_set: str
    gap: Num
    ci_low: Num
    ci_high: Num
    n: int


class HeldoutLogratio(Record):
    """The IM-RM's mean log πθ − log πref of one completion on held-out pairs, with its bootstrap CI."""

    completion: Literal["chosen", "rejected"]
    mean: Num
    ci_low: Num
    ci_high: Num
    n: int


class BelowChance(Record):
    """An RM whose accuracy interval on a domain set lies below 0.5."""

    rm: str
    eval_set: str
    accuracy: Num
    ci_low: Num
    ci_high: Num


class Training(Section):
    """What both runs share (the EX-RM's config, which the IM-RM's repeats) and whether their data are the same."""

    base_model: str
    n_pairs: int
    sources: list[str]
    steps: int
    batch_size: int
    tuning: str  # which weights trained (rmlib.train.TUNINGS)
    lr: float
    max_len: int
    seed: int
    beta: float  # the IM-RM's DPO β
    same_data: bool  # identical data hashes and step-by-step data order
    ex_reused: bool  # the EX-RM was the finetuning chapter's finished run of this config


class Shift(Section):
    """The evaluation sets' sizes and how much the token-level rewrite changed."""

    sizes: dict[str, int]  # evaluation set -> pairs
    shifts: list[str]  # the rewrites, in the order applied
    changed: Num  # share of held-out pairs the rewrite changed
    kept_mean: Num  # share of each response's words the rewrite kept: mean and median over pairs
    kept_median: Num


class AccuracyLine(Record):
    """One evaluation set: each RM's accuracy with its CI, and the paired IM − EX gap."""

    eval_set: str
    im_accuracy: Num
    im_ci_low: Num
    im_ci_high: Num
    ex_accuracy: Num
    ex_ci_low: Num
    ex_ci_high: Num
    gap: Num
    ci_low: Num
    ci_high: Num
    n: int


class Accuracy(Section):
    implicit: str  # the IM-RM's label
    explicit: str
    lines: list[AccuracyLine]  # every set of the gaps but the difference of drops


class Overlap(Section):
    """Spearman correlations of each RM's margin with the overlap features
    (:func:`rmbook.chapters.implicit_vs_explicit.analysis.overlap_correlations`)."""

    table: Table


class Displacement(Section):
    """Start, end and change of the DPO run's log-ratios, log-probs and margin (means over ``window`` logged steps;
    :func:`rmbook.chapters.implicit_vs_explicit.analysis.displacement_summary`)."""

    window: int
    n_steps: int
    logratio_chosen_start: Num
    logratio_chosen_end: Num
    logratio_chosen_change: Num
    logratio_rejected_start: Num
    logratio_rejected_end: Num
    logratio_rejected_change: Num
    logp_chosen_start: Num
    logp_chosen_end: Num
    logp_chosen_change: Num
    logp_rejected_start: Num
    logp_rejected_end: Num
    logp_rejected_change: Num
    margin_start: Num
    margin_end: Num
    margin_change: Num
    displaced: bool
    margin_grew: bool  # margin_change > 0
    rejected_fell_further: bool  # the rejected completion's log-ratio ends below the chosen one's


class Heldout(Section):
    """The IM-RM's log πθ − log πref on held-out pairs after training, and where the chosen one's CI lies."""

    n: int
    chosen_mean: Num
    chosen_ci_low: Num
    chosen_ci_high: Num
    rejected_mean: Num
    rejected_ci_low: Num
    rejected_ci_high: Num
    chosen_side: Literal["below", "above", "spans"]  # the chosen completion's CI against 0


class DomainGap(Record):
    """IM − EX accuracy on one other source, and what it counts as for the domain half."""

    source: str
    gap: Num
    ci_low: Num
    ci_high: Num
    kind: str


class OpenHalf(Record):
    """A half of the pattern that neither replicates nor fails, and its state."""

    half: str
    state: str


class Verdict(Section):
    """The chapter's verdict on the published pattern
    (:func:`rmbook.chapters.implicit_vs_explicit.analysis.pattern_verdict`)."""

    token: str | None
    domain: str | None
    domain_margin: float
    domain_sets: dict[str, str]
    domain_worse_sets: list[str]
    below_chance: list[BelowChance]
    replicates: bool
    base: str  # the base both RMs were trained from
    drop: Gap | None  # the difference of drops the token half is judged on (None when there is none)
    domain_gaps: list[DomainGap]
    failed_halves: list[str]  # "token-level" / "domain": the halves that go against the pattern
    one_failed: bool
    open_halves: list[OpenHalf]  # the halves that neither replicate nor fail


class ImplicitVsExplicitResults(ChapterResults):
    CHAPTERS = ("implicit_vs_explicit",)
    SCHEMA_VERSION = 3  # 2: the prose's sections (training, shift, accuracy_lines, overlap); fields added to
    # displacement and verdict; overlap's table moves into its section. 3: training.method is training.tuning

    runs: dict[Literal["ex", "im"], JsonData]  # each run's stored metadata (config, data hash, steps, ...)
    ex_reused: bool  # the EX-RM was a finetuning run found in the cache
    same_order: bool  # both RMs saw the pairs in the same order
    sets: dict[str, int]  # evaluation set -> pairs
    token_shift_changed: Num  # share of held-out pairs the rewrite changed
    training: Training
    shift: Shift
    accuracy: Table
    accuracy_lines: Accuracy
    gaps: list[Gap]
    overlap: Overlap
    displacement: Displacement
    heldout_logratios: list[HeldoutLogratio]
    heldout: Heldout
    trajectory: Table
    verdict: Verdict
