"""The claims the implicit_rewards chapter's results test (whether implicit RMs (log-prob differences) show the Big Two
difference): each :class:`~rmbook.analysis.claims.Claim` with the function that judges its parts from the chapter's
numbers, read by attribute through :class:`~rmbook.analysis.claims.Evidence`. Their evidence sentences are the
macros of ``claims.md.j2`` beside this file. The claims page gathers ``CLAIMS`` by the chapter's name; the chapter's
"In brief" judges them on its own results."""
from __future__ import annotations

from rmbook.analysis.claims import (Claim, Evidence, Part, evaluate_part as _part, sentences, test_outcome, untestable,
                                    ICLR, ICLR_ABSTRACT)

__all__ = ["CLAIMS"]

said = sentences("implicit_rewards")  # this chapter's evidence sentences: the macros of claims.md.j2 beside this file


def implicit(e: Evidence) -> list[Part]:
    def fn():
        panel = e.of("implicit_rewards").mwlr_gemma_llama
        model, g, p = panel.model, panel.hedges_g, panel.p_fdr
        return test_outcome(p, g > 0), said("implicit", model=model, hedges_g=g, p_fdr=p)
    return [untestable("the paper's LMs (Gemma-2, Llama-3)", "needs their log-probs (about 2 GB on a model hub) "
                        "or the models on a GPU"),
            _part("same method on the embedded LMs (Gemma-3 vs SmolLM2, a Llama-architecture model)", e, fn,
                  context=True, support="replication")]


CLAIMS: list[Claim] = [
    Claim("implicit_rewards", ICLR, "Log-probability differences between instruction-tuned and pretrained LMs "
          "form implicit RMs that show the same agency/communion difference.", ICLR_ABSTRACT,
          ("implicit_rewards",), "embedded LMs only (the paper's LMs are not available here)", "words",
          "permutation Welch test of Agency vs Communion ranks under each implicit reward, FDR", implicit, place=4),
]
