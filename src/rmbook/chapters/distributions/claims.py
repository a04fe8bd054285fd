"""The claims the distributions chapter's results test (whether RMs encode high- and low-scoring answers
asymmetrically): each :class:`~rmbook.analysis.claims.Claim` with the function that judges its parts from the
chapter's numbers, read by attribute through :class:`~rmbook.analysis.claims.Evidence`. Their evidence sentences are
the macros of ``claims.md.j2`` beside this file. The claims page gathers ``CLAIMS`` by the chapter's name; the
chapter's "In brief" judges them on its own results."""
from __future__ import annotations

from rmbook.analysis.claims import (Claim, Evidence, Part, evaluate_part as _part, sentences, share_outcome, untestable,
                                    FACCT, FACCT_ABSTRACT)

__all__ = ["CLAIMS"]

said = sentences("distributions")  # this chapter's evidence sentences: the macros of claims.md.j2 beside this file


def asymmetry(e: Evidence) -> list[Part]:
    def skew():
        sk = e.of("distributions").skew_summary["published"]
        n, neg, pos = sk.n, sk.n_negative, sk.n_positive
        # "asymmetric" names no side: an RM skewed either way is asymmetric, and one whose interval spans 0 is
        # unclear (no interval shows a distribution symmetric), so nothing here can count against the claim
        k = e.derive("RMs clearly asymmetric, either way", neg + pos)
        return share_outcome(k, n, against=0), said("skew", n_negative=neg, n_positive=pos, n_asymmetric=k, n_models=n)

    return [_part("asymmetric score distributions (items)", e, skew,
                  one_sided="'asymmetric' names no side, and no interval shows a distribution symmetric"),
            untestable("full-vocabulary tokens", "the paper RMs' full-vocabulary token scores are not in the "
                        "released data; sweeping them needs the RM weights on a GPU")]


CLAIMS: list[Claim] = [
    Claim("asymmetry", FACCT, "RMs encode high- and low-scoring answers asymmetrically.", FACCT_ABSTRACT + " (ii)",
          ("distributions",), "published EloEverything scores (items, not single tokens)", "RMs",
          "skewness with a bootstrap CI, same sign in most RMs", asymmetry, place=2),
]
