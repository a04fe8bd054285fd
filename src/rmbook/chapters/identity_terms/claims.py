"""The claims the identity_terms chapter's results test (whether RMs place identity items below human ratings): each
:class:`~rmbook.analysis.claims.Claim` with the function that judges its parts from the chapter's numbers, read by
attribute through :class:`~rmbook.analysis.claims.Evidence`. Their evidence sentences are the macros of
``claims.md.j2`` beside this file. The claims page gathers ``CLAIMS`` by the chapter's name; the chapter's "In
brief" judges them on its own results."""
from __future__ import annotations

from rmbook.analysis.claims import (EXISTENCE, Claim, Evidence, Part, evaluate_part as _part, exists_outcome, sentences,
                                    untestable, FACCT, FACCT_ABSTRACT)

__all__ = ["CLAIMS"]

said = sentences("identity_terms")  # this chapter's evidence sentences: the macros of claims.md.j2 beside this file


def identity(e: Evidence) -> list[Part]:
    def placement():
        # Items people rank high get negative gaps from any imperfect ranker (regression to the mean), so each
        # item's gap is compared with the gap expected at its human rank (identity_terms chapter).
        elo = e.of("identity_terms").elo
        below, above, n = elo.n_below, elo.n_above, elo.n_items
        below_raw, above_raw, bins = elo.n_below_raw, elo.n_above_raw, elo.human_bins
        # each item's interval over RMs is a unit: under error control the items below must beat chance
        return (exists_outcome(below, n=n),
                said("identity_placement", n_below=below, n_above=above, n_items=n, n_below_raw=below_raw,
                     n_above_raw=above_raw, n_bins=bins))

    return [_part("some identity terms placed below human ratings", e, placement, one_sided=EXISTENCE),
            untestable("caused by harmlessness training", "needs the RMs' training data or an ablation of "
                        "harmlessness data, which this book does not have")]


CLAIMS: list[Claim] = [
    Claim("identity_terms", FACCT, "RMs can encode biases toward identity groups, possibly as a side effect of "
          "harmlessness training.", FACCT_ABSTRACT, ("identity_terms",),
          "published EloEverything scores of identity items vs human Elo", "identity items",
          "RM percentile − human percentile, minus the gap expected at the item's human rank, t interval "
          "over RMs", identity, place=5),
]
