"""A value card as a reader sees it: ``card.md``, a short section a model's author can paste into a model card, every
number read from the typed card (:class:`rmlib.analysis.card.ValueCard`)."""
from __future__ import annotations

from collections import Counter

from rmlib.analysis.card import GREATEST_PROMPT, ValueCard
from rmlib.data import design_prompts
from rmlib.report.prose import render

__all__ = ["card_markdown", "ANCHORS"]

ANCHORS = ("R-Gem-2B", "R-Lla-3B")  # the FAccT paper's love vs freedom pair: one developer, one data set


def card_markdown(card: ValueCard) -> str:
    """The card's sentences (templates/card.md.j2)."""
    prompts = design_prompts(card.prompts).set_index("prompt_key")
    by_valence = {v: ", ".join(f"*{p}*" for p in g["prompt"]) for v, g in prompts.groupby("valence")}
    counts = Counter(card.reference_families.values())
    families = " and ".join(f"{n} {f}-based" for f, n in sorted(counts.items()))
    ranks = {(w.model, w.word): w.rank for w in card.words}
    anchors = [{"model": a, "love": ranks.get((a, "love")), "freedom": ranks.get((a, "freedom"))}
               for a in ANCHORS if (a, "love") in ranks]
    own = {"love": ranks.get((card.model, "love")), "freedom": ranks.get((card.model, "freedom"))}
    return render("card", "card", c=card, valence_prompts=by_valence, families=families,
                  greatest=prompts.loc[GREATEST_PROMPT, "prompt"], own=own, anchors=anchors)
