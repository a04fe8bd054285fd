"""The implicit_vs_explicit chapter's results: one EX-RM (Bradley–Terry head) and one IM-RM (DPO) trained from one
base on identical pairs; their accuracy per evaluation set (held-out pairs, their token-level rewrites, other
sources), the paired IM − EX gaps with bootstrap intervals that the claims page judges, the overlap correlations,
DPO's likelihood-displacement record (along training and on held-out pairs) and the chapter's verdict on the
published pattern. Each section is built where the chapter computes it, and its sentences are rendered from it
(``rmbook/chapters/implicit_vs_explicit/prose.md.j2``)."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.implicit_vs_explicit import analysis as ie
from rmbook.chapters.implicit_vs_explicit.types import (Gap, HeldoutLogratio, BelowChance, Training, Shift,
                                                        AccuracyLine, Accuracy, Overlap, Displacement, Heldout,
                                                        DomainGap, OpenHalf, Verdict, ImplicitVsExplicitResults)
from rmlib.train import stored_tuning

__all__ = ["Gap", "HeldoutLogratio", "BelowChance", "Training", "Shift", "AccuracyLine", "Accuracy", "Overlap",
           "Displacement", "Heldout", "DomainGap", "OpenHalf", "Verdict", "ImplicitVsExplicitResults", "training",
           "shift", "accuracy", "overlap", "displacement", "heldout", "verdict", "chapter_results"]


def training(runs: dict, same_order: bool) -> Training:
    """The section of :func:`rmbook.chapters.implicit_vs_explicit.analysis.train_both`'s runs."""
    ex, im = runs["ex"].run, runs["im"].run
    return Training(base_model=ex["base_model"], n_pairs=ex["n_pairs"], sources=ex["sources"], steps=ex["steps"],
                    batch_size=ex["batch_size"], tuning=stored_tuning(ex), lr=ex["lr"], max_len=ex["max_len"],
                    seed=ex["seed"], beta=im["beta"], same_data=ex["data_hash"] == im["data_hash"] and same_order,
                    ex_reused=bool(runs["ex_reused"]))


def shift(sets: pd.DataFrame, shifts: list[str]) -> Shift:
    """The section of :func:`rmbook.chapters.implicit_vs_explicit.analysis.evaluation_sets` and the rewrites applied."""
    tok = sets[sets["eval_set"] == ie.TOKEN_SHIFT]
    return Shift(sizes=sets.groupby("eval_set", sort=False).size().to_dict(), shifts=list(shifts),
                 changed=tok["changed"].mean(), kept_mean=tok["kept_words"].mean(),
                 kept_median=tok["kept_words"].median())


def accuracy(acc: pd.DataFrame, gaps: pd.DataFrame, implicit: str, explicit: str) -> Accuracy:
    """The section of :func:`~rmbook.chapters.implicit_vs_explicit.analysis.accuracy_table` and
    :func:`~rmbook.chapters.implicit_vs_explicit.analysis.paired_gaps`: one line per set, the two RMs side by side."""
    a = acc.set_index(["rm", "eval_set"])
    lines = []
    for s, g in gaps.set_index("eval_set").iterrows():
        if s == "token_shift_drop":
            continue
        im, ex = a.loc[(implicit, s)], a.loc[(explicit, s)]
        lines.append(AccuracyLine(eval_set=s, im_accuracy=im["accuracy"], im_ci_low=im["ci_low"],
                                  im_ci_high=im["ci_high"], ex_accuracy=ex["accuracy"], ex_ci_low=ex["ci_low"],
                                  ex_ci_high=ex["ci_high"], gap=g["gap"], ci_low=g["ci_low"], ci_high=g["ci_high"],
                                  n=int(g["n"])))
    return Accuracy(implicit=implicit, explicit=explicit, lines=lines)


def overlap(corr: pd.DataFrame) -> Overlap:
    """The section of :func:`rmbook.chapters.implicit_vs_explicit.analysis.overlap_correlations`."""
    return Overlap(table=corr)


def displacement(summary: dict) -> Displacement:
    """The section of :func:`rmbook.chapters.implicit_vs_explicit.analysis.displacement_summary`."""
    return Displacement(**summary, margin_grew=summary["margin_change"] > 0,
                        rejected_fell_further=summary["logratio_rejected_end"] < summary["logratio_chosen_end"])


def heldout(held: pd.DataFrame) -> Heldout:
    """The section of :func:`rmbook.chapters.implicit_vs_explicit.analysis.heldout_logratios`."""
    h = held.set_index("completion")
    c, r = h.loc["chosen"], h.loc["rejected"]
    side = "below" if c["ci_high"] < 0 else "above" if c["ci_low"] > 0 else "spans"
    return Heldout(n=int(c["n"]), chosen_mean=c["mean"], chosen_ci_low=c["ci_low"], chosen_ci_high=c["ci_high"],
                   rejected_mean=r["mean"], rejected_ci_low=r["ci_low"], rejected_ci_high=r["ci_high"],
                   chosen_side=side)


def verdict(judged: dict, gaps: pd.DataFrame, base: str) -> Verdict:
    """The section of :func:`rmbook.chapters.implicit_vs_explicit.analysis.pattern_verdict` (``judged``), with the gaps
    it was judged from and the base both RMs share."""
    g = gaps.set_index("eval_set")
    drop = g.loc["token_shift_drop"] if "token_shift_drop" in g.index else None
    domain = g[g.index.str.startswith("domain:")]
    halves = {"token-level": judged["token"], "domain": judged["domain"]}
    failed = [k for k, v in halves.items() if v == "does not replicate"]
    return Verdict(**judged, base=base,
                   drop=None if drop is None else Gap(eval_set="token_shift_drop", **drop.to_dict()),
                   domain_gaps=[DomainGap(source=s.split(":", 1)[1], gap=r["gap"], ci_low=r["ci_low"],
                                          ci_high=r["ci_high"], kind=judged["domain_sets"][s.split(":", 1)[1]])
                                for s, r in domain.iterrows()],
                   failed_halves=failed, one_failed=len(failed) == 1,
                   open_halves=[OpenHalf(half=k, state=v or "not computed") for k, v in halves.items()
                                if v not in ("replicates", "does not replicate")])


def chapter_results(runs: dict, same_order: bool, training: Training, shift: Shift, accuracy: pd.DataFrame,
                    lines: Accuracy, gaps: pd.DataFrame, overlap: Overlap, displacement: Displacement,
                    heldout_logratios: pd.DataFrame, heldout: Heldout, trajectory: pd.DataFrame,
                    verdict: Verdict) -> ImplicitVsExplicitResults:
    """The chapter's results from its sections (``runs``: :func:`implicit_explicit.train_both`; ``same_order``:
    whether both RMs saw the pairs in the same order)."""
    return ImplicitVsExplicitResults(
        runs={"ex": runs["ex"].run, "im": runs["im"].run}, ex_reused=training.ex_reused,
        same_order=bool(same_order), sets=shift.sizes,
        token_shift_changed=shift.changed, training=training, shift=shift, accuracy=accuracy, accuracy_lines=lines,
        gaps=gaps, overlap=overlap, displacement=displacement, heldout_logratios=heldout_logratios, heldout=heldout,
        trajectory=trajectory, verdict=verdict)
