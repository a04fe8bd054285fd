"""The claims the heterogeneity chapter's results test (whether the ten RMs rank items alike, and whether base family
explains it): each :class:`~rmbook.analysis.claims.Claim` with the function that judges its parts from the chapter's
numbers, read by attribute through :class:`~rmbook.analysis.claims.Evidence`. Their evidence sentences are the
macros of ``claims.md.j2`` beside this file. The claims page gathers ``CLAIMS`` by the chapter's name; the chapter's
"In brief" judges them on its own results."""
from __future__ import annotations

from rmbook.analysis.claims import (TAU_BAND, TAU_HETEROGENEOUS, Claim, Evidence, Part, evaluate_part as _part,
                                    sentences, test_outcome, threshold_outcome, FACCT, FACCT_ABSTRACT)

__all__ = ["CLAIMS"]

said = sentences("heterogeneity")  # this chapter's evidence sentences: the macros of claims.md.j2 beside this file


def heterogeneity(e: Evidence) -> list[Part]:
    def tau():
        agree = e.of("heterogeneity").runs["published"].agreement
        med, lo, hi = agree.tau_median, agree.tau_min, agree.tau_max
        outcome = threshold_outcome(med, TAU_HETEROGENEOUS, band=TAU_BAND)
        close = abs(med - TAU_HETEROGENEOUS) <= TAU_BAND
        return outcome, said("tau", median=med, low=lo, high=hi, limit=TAU_HETEROGENEOUS, band=TAU_BAND,
                             too_close=close)

    def rsa():
        # Base family and model size overlap (the Gemma-27B RMs share both), so the base design is tested with size
        # held fixed: a partial Mantel test, model labels permuted (heterogeneity chapter), two-sided and exact
        # over every relabelling of the 10 RMs (a Monte Carlo p carries its SE, and a p within 2 SE of alpha decides
        # nothing).
        run = e.of("heterogeneity").runs["published"]
        pm = run.designs.base_given_size
        design, given = pm.design, pm.given
        r, p, r_alone, r_designs, n = pm.r, pm.p, pm.r_design, pm.r_given_design, pm.n_models
        exact, se, n_perm = pm.exact, pm.p_se, pm.n_permutations
        other = run.partial_mantels.where(design=given, given=design)
        r_other, p_other = other.r, other.p
        # the sentence states the numbers only: a partial r that is not significant is not established, so it says
        # nothing about what the other design "explains" (#63 item 1)
        return (test_outcome(p, r > 0, se=se),
                said("partial_mantel", design=design, given=given, r=r, p=p, exact=exact, p_se=se,
                     n_permutations=n_perm, r_alone=r_alone, r_designs=r_designs, n_models=n, r_other=r_other,
                     p_other=p_other))

    return [_part("RMs rank items differently", e, tau), _part("similarity follows the base model", e, rsa)]


CLAIMS: list[Claim] = [
    Claim("heterogeneity", FACCT, "Reward models trained for similar objectives rank the same answers very "
          "differently, and how alike two RMs are follows their base model.",
          FACCT_ABSTRACT + " (i); the base-model influence: the paper's heterogeneity section",
          ("heterogeneity",), "published scores of the 10 RMs for 7,530 EloEverything items", "pairs of RMs",
          f"median pairwise Kendall τ below {TAU_HETEROGENEOUS}; partial Mantel test of τ against a same-base "
          "design with model size held fixed",
          heterogeneity, place=1),
]
