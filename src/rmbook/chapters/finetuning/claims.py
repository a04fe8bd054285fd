"""The claims the finetuning chapter's results test (the base-model difference under identical data (ablations) and its
durability as data grow): each :class:`~rmbook.analysis.claims.Claim` with the function that judges its parts from
the chapter's numbers, read by attribute through :class:`~rmbook.analysis.claims.Evidence`. Their evidence sentences
are the macros of ``claims.md.j2`` beside this file. The claims page gathers ``CLAIMS`` by the chapter's name; the
chapter's "In brief" judges them on its own results."""
from __future__ import annotations

import pandas as pd

from rmbook.analysis.claims import (ALPHA, Claim, Evidence, Part, evaluate_part as _part, sentences, share_outcome,
                                    ICLR, ICLR_ABSTRACT)

__all__ = ["CLAIMS"]

said = sentences("finetuning")  # this chapter's evidence sentences: the macros of claims.md.j2 beside this file


def _trained_power(e: Evidence) -> dict:
    """Why the RMs trained here are context, not evidence (the fields of the ``trained_power`` macro): their
    held-out accuracy at the final checkpoints and the number of runs (tiny RMs on a few hundred pairs, trained on 2
    CPU cores, are weak teachers of any claim)."""
    metrics = pd.DataFrame([(m.run, m.step, m.accuracy) for m in e.of("finetuning").metrics],
                           columns=["run", "step", "accuracy"])
    final = metrics.sort_values("step").groupby("run").tail(1)
    lo = e.derive("lowest final held-out accuracy", float(final["accuracy"].min()))
    hi = e.derive("highest final held-out accuracy", float(final["accuracy"].max()))
    return {"low": lo, "high": hi, "n_runs": e.derive("trained runs", len(final))}


def _runs_outcome(n_held: int, n: int, n_failed: int) -> str:
    """A claim over several published runs, judged by the share rule with the runs as its units: each run is one
    run without replicates, judged by the order of its base families at its final checkpoint, so a run holds or
    fails and none is unclear. No single run, the largest one included, decides the claim alone (the page names
    the run that flips)."""
    return share_outcome(n_held, n, against=n_failed)


def ablation(e: Evidence) -> list[Part]:
    def published():
        d = e.of("finetuning").durability.published
        n_failed, largest, largest_holds = d.final_n_failed, d.final_largest_run, d.final_largest_run_holds
        k, n, failed, largest_tied = d.final_claimed_holds, d.final_n, d.final_failed_runs, d.final_largest_run_tied
        return (_runs_outcome(k, n, n_failed),
                said("ablation_published", n_held=k, n_runs=n, failed=failed, any_failed=bool(failed),
                     largest=largest, largest_holds=largest_holds, largest_tied=largest_tied))

    def ours():
        effect = e.of("finetuning").base_effect
        k, n = effect.n_prompts_significant, effect.n_prompts
        # a one-way ANOVA over seeds names no direction: a prompt where it is not significant is unclear, and
        # none can count against the claim
        return (share_outcome(k, n, against=0), said("ablation_ours", alpha=ALPHA, n_significant=k, n_prompts=n,
                                          power=_trained_power(e)))

    return [_part("published runs, identical data per run", e, published),
            _part("RMs trained here", e, ours, context=True, support="replication",
                  one_sided="a one-way ANOVA of the gap on the base names no direction")]


def durability(e: Evidence) -> list[Part]:
    def published():
        d = e.of("finetuning").durability.published
        held, n, n_failed = d.n_runs_held, d.n_runs_judged, d.n_runs_failed
        k, m = d.checkpoints_claimed_holds, d.checkpoints_n
        return (_runs_outcome(held, n, n_failed),
                said("durability_published", n_held=held, n_runs=n, n_checkpoints_held=k, n_checkpoints=m))

    def largest():
        # "as data grow" is also a question about one run: the largest data size. It is one run among the runs
        # above, so it is named on the page as context and counts there once, as one unit: a part of its own
        # counted it twice and made the verdict depend on which run failed (#63 item 2).
        d = e.of("finetuning").durability.published
        run, holds, tied = d.largest_run, d.largest_run_holds, d.largest_run_tied
        if run is None:
            return "untestable", "no published run with several checkpoints has a data size"
        flip = d.runs_judged.where(run=run).flip_step if not (holds or tied) else None
        # a tie is neither: 'not established', as the order rule has it (#63 item 6)
        outcome = "holds" if holds else "not established" if tied else "fails"
        return outcome, said("durability_largest", largest=run, largest_holds=holds, largest_tied=tied, flip_step=flip)

    def seeds():
        ours = e.of("finetuning").durability.ours
        exists, n, w = ours.modal_order_exists, ours.n_seeds, ours.kendall_w
        if not exists:
            n_orders = ours.n_distinct_orders
            return "not established", said("durability_no_order", n_seeds=n, n_orders=n_orders, kendall_w=w,
                                            power=_trained_power(e))
        k = ours.n_seeds_modal_order
        # every seed gives an order of the bases, the most common one or another: none is unclear
        return share_outcome(k, n, against=n - k), said("durability_seeds", n_modal=k, n_seeds=n, kendall_w=w,
                                         power=_trained_power(e))

    return [_part("published runs keep the order to their final checkpoint", e, published),
            _part("the largest data size keeps it (one of the runs above)", e, largest, context=True),
            _part("our RMs keep one order across seeds", e, seeds, context=True, support="replication")]


CLAIMS: list[Claim] = [
    Claim("ablations", ICLR, "The base-model difference holds when the preference data and fine-tuning are "
          "identical.", ICLR_ABSTRACT, ("finetuning",),
          "the authors' checkpoint files (rank_results_*.csv) and RMs trained here from the embedded bases",
          "training runs", "order of the families' gaps at the final checkpoint; one-way ANOVA of the gap on the "
          "base across seeds", ablation, place=5),
    Claim("durability", ICLR, "The effect is repeatable and durable: as training and preference data grow, RMs "
          "keep their base family's ordering.", ICLR_ABSTRACT, ("finetuning",),
          "the authors' checkpoint files; RMs trained here (seeds)", "checkpoints; seeds",
          "the claimed order (Llama below Gemma) at each checkpoint; pairwise flips; Kendall's W across seeds",
          durability, place=6),
]
