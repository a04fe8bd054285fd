"""A value card as a reader sees it: ``card.md``, a short section a model's author can paste into a model card, and
``card.html``, one offline page with the same sentences and the card's chart (Vega inlined, no network); every
number read from the typed card (:class:`rmbook.analysis.card.ValueCard`)."""
from __future__ import annotations

import html
from collections import Counter

from markdown_it import MarkdownIt

from rmbook.analysis.card import GREATEST_PROMPT, ValueCard
from rmlib.data import design_prompts
from rmbook.report.charts import card_chart, render_html
from rmbook.report.prose import render

__all__ = ["card_markdown", "card_html", "ANCHORS"]

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


def card_html(card: ValueCard) -> str:
    """One self-contained page: the card's sentences and its chart, drawn by the Vega bundle inlined in the page."""
    body = MarkdownIt("commonmark").render(card_markdown(card))
    chart = render_html(card_chart(card).to_dict(), inline_bundle=True)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Value card: {html.escape(card.label)}</title>"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<style>body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;"
            "line-height:1.5}code{background:#f3f3f3;padding:0 .2em}.rmlib-chart{max-width:100%;overflow-x:auto}"
            ".rmlib-chart .vega-embed{max-width:100%}.rmlib-chart svg.marks{max-width:100%;height:auto}"
            "</style></head><body>\n" + body + chart + "\n</body></html>\n")
