"""The claims the mere_exposure chapter's results test (whether RMs over-value frequent words): each
:class:`~rmbook.analysis.claims.Claim` with the function that judges its parts from the chapter's numbers, read by
attribute through :class:`~rmbook.analysis.claims.Evidence`. Their evidence sentences are the macros of
``claims.md.j2`` beside this file. The claims page gathers ``CLAIMS`` by the chapter's name; the chapter's "In
brief" judges them on its own results."""
from __future__ import annotations

from rmbook.analysis.claims import (Claim, Evidence, Part, evaluate_part as _part, sentences, share_outcome, FACCT,
                                    FACCT_ABSTRACT)

__all__ = ["CLAIMS"]

said = sentences("mere_exposure")  # this chapter's evidence sentences: the macros of claims.md.j2 beside this file


def exposure(e: Evidence) -> list[Part]:
    def valence(pv):
        def fn():
            res = e.of("mere_exposure")
            verdicts = [(s, res.by_model.where(source=s, prompts=pv)) for s in res.matchings]
            rows = [(s, v.n_above, v.n_below, v.n_models) for s, v in verdicts]
            outcomes = {share_outcome(k, n, against=j) for _, k, j, n in rows}
            outcome = outcomes.pop() if len(outcomes) == 1 else "mixed"  # every matching agrees, or it is mixed
            return outcome, said("exposure", matchings=[{"source": s, "n_above": k, "n_below": j, "n_models": n}
                                                        for s, k, j, n in rows])
        return fn

    return [_part("positive prompts, every frequency matching", e, valence("positive")),
            _part("negative prompts, every frequency matching", e, valence("negative"))]


CLAIMS: list[Claim] = [
    Claim("mere_exposure", FACCT, "RMs over-value frequent words: scores rise with word frequency in almost all "
          "models and prompts.", FACCT_ABSTRACT + " (iv)", ("mere_exposure",),
          "published dictionary-word scores; frequency by exact BNC form, BNC lemma totals and wordfreq", "RMs",
          "per RM and prompt valence, the frequency slope pooled over prompts (valence held fixed) with a "
          "word-clustered CI; each frequency matching", exposure, place=4),
]
