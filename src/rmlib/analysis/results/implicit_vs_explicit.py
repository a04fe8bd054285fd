"""The implicit_vs_explicit chapter's results: one EX-RM (Bradley–Terry head) and one IM-RM (DPO) trained from one
base on identical pairs; their accuracy per evaluation set (held-out pairs, their token-level rewrites, other
sources), the paired IM − EX gaps with bootstrap intervals that the claims page judges, the overlap correlations,
DPO's likelihood-displacement record (along training and on held-out pairs) and the chapter's verdict on the
published pattern."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis import implicit_explicit as ie
from rmlib.storage import ChapterResults, JsonData, Num, Record, Section, Table

__all__ = ["Gap", "HeldoutLogratio", "BelowChance", "Displacement", "Verdict", "ImplicitVsExplicitResults",
           "chapter_results"]


class Gap(Record):
    """IM − EX accuracy on one evaluation set (or the difference of their drops, ``token_shift_drop``), paired
    bootstrap over pairs (:func:`rmlib.analysis.implicit_explicit.paired_gaps`)."""

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


class Displacement(Section):
    """Start, end and change of the DPO run's log-ratios, log-probs and margin (means over ``window`` logged steps;
    :func:`rmlib.analysis.implicit_explicit.displacement_summary`)."""

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


class Verdict(Section):
    """The chapter's verdict on the published pattern (:func:`rmlib.analysis.implicit_explicit.pattern_verdict`)."""

    token: str | None
    domain: str | None
    domain_margin: float
    domain_sets: dict[str, str]
    domain_worse_sets: list[str]
    below_chance: list[BelowChance]
    replicates: bool


class ImplicitVsExplicitResults(ChapterResults):
    CHAPTERS = ("implicit_vs_explicit",)

    runs: dict[Literal["ex", "im"], JsonData]  # each run's stored metadata (config, data hash, steps, ...)
    ex_reused: bool  # the EX-RM was a finetuning run found in the cache
    same_order: bool  # both RMs saw the pairs in the same order
    sets: dict[str, int]  # evaluation set -> pairs
    token_shift_changed: Num  # share of held-out pairs the rewrite changed
    accuracy: Table
    gaps: list[Gap]
    overlap: Table
    displacement: Displacement
    heldout_logratios: list[HeldoutLogratio]
    trajectory: Table
    verdict: Verdict


def chapter_results(runs: dict, same_order: bool, sets: pd.DataFrame, accuracy: pd.DataFrame, gaps: pd.DataFrame,
                    overlap: pd.DataFrame, displacement: dict, heldout: pd.DataFrame, trajectory: pd.DataFrame,
                    verdict: dict) -> ImplicitVsExplicitResults:
    """The chapter's results from what its cells computed (``runs``: :func:`implicit_explicit.train_both`; ``sets``:
    :func:`implicit_explicit.evaluation_sets`)."""
    shifted = sets[sets["eval_set"] == ie.TOKEN_SHIFT]
    return ImplicitVsExplicitResults(
        runs={"ex": runs["ex"].run, "im": runs["im"].run}, ex_reused=bool(runs["ex_reused"]),
        same_order=bool(same_order), sets=sets.groupby("eval_set", sort=False).size().to_dict(),
        token_shift_changed=shifted["changed"].mean(), accuracy=accuracy, gaps=gaps, overlap=overlap,
        displacement=displacement, heldout_logratios=heldout, trajectory=trajectory, verdict=verdict)
