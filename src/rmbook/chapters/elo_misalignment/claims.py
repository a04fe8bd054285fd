"""The claims the elo_misalignment chapter's results test (which themes RMs undervalue against human ratings): each
:class:`~rmbook.analysis.claims.Claim` with the function that judges its parts from the chapter's numbers, read by
attribute through :class:`~rmbook.analysis.claims.Evidence`. Their evidence sentences are the macros of
``claims.md.j2`` beside this file. The claims page gathers ``CLAIMS`` by the chapter's name; the chapter's "In
brief" judges them on its own results."""
from __future__ import annotations

from rmbook.analysis.claims import (Claim, Evidence, Part, evaluate_part as _part, monte_carlo_straddles, sentences,
                                    share_outcome, FACCT)

__all__ = ["CLAIMS"]

said = sentences("elo_misalignment")  # this chapter's evidence sentences: the macros of claims.md.j2 beside this file


def themes(e: Evidence) -> list[Part]:
    # Per prompt: the "humans most prefer" prompt and the two "greatest" prompts undervalue different themes, and a
    # pooled test averages opposite effects away (the framing chapter's lesson). The prompts are the units of the
    # share rule: a theme holds where it is over-represented among the most undervalued items on (most, here all 3)
    # prompts, fails where it is under-represented on as many, is not established where no prompt shows either,
    # and is mixed otherwise, naming the prompts.
    def theme(t):
        def fn():
            by_prompt = e.of("elo_misalignment").topics.themes_by_prompt
            prompts = sorted({r.prompt for r in by_prompt})
            picked = {pr: by_prompt.where(topic=t, prompt=pr) for pr in prompts}
            # a direction whose Monte Carlo p (± 2 SE) straddles alpha is too close to call: unclear on that prompt
            rows = [(pr, "close" if monte_carlo_straddles(r.p_fdr, r.p_fdr_se) else r.direction, r.ratio, r.p_fdr,
                     r.p_fdr_se) for pr, r in picked.items()]
            over = [pr for pr, d, *_ in rows if d == "over"]
            under = [pr for pr, d, *_ in rows if d == "under"]
            outcome = share_outcome(len(over), len(rows), against=len(under))
            note = said("themes_mixed", over=over, under=under) if outcome == "mixed" else None
            return (outcome, said("themes", prompts=[{"prompt": pr, "direction": d, "ratio": ratio, "p_fdr": p,
                                                      "p_fdr_se": se} for pr, d, ratio, p, se in rows]),
                    {"note": note})
        return fn

    return [_part(t, e, theme(t)) for t in ("nature", "life", "technology", "human sexuality")]


CLAIMS: list[Claim] = [
    Claim("misalignment_themes", FACCT, "Compared with human ratings, RMs undervalue concepts related to nature, "
          "life, technology and human sexuality.", "FAccT 2025, EloEverything section", ("elo_misalignment",),
          "published EloEverything scores of 10 RMs vs human Elo; WordNet topics", "items",
          "per prompt, permutation test over items (within human-rank bins) of each theme among the 10% most "
          "undervalued, FDR across themes × prompts", themes, place=6),
]
