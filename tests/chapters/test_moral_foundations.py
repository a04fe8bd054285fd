"""The Moral Foundations chapter: panels by foundation x virtue/vice, and by foundation as the authors test it."""
from __future__ import annotations


def test_moral_foundations_chapter(chapter, check_published_profile):
    c = chapter("moral_foundations")
    out, text = c.results, c.markdown
    check_published_profile(out["results"]["published"], 10)
    foundations = out["by_foundation"]  # virtue and vice pooled per foundation, as the authors test it
    assert foundations["n_panels"] == 5 * 2 and foundations["unit"] == "model"
    assert out["results"]["compute"]["n_panels"] == 20
    assert "Under positive prompts" in text and "seeded sample of 20 words" in text
    assert foundations["pooled"] is True and "**Published RM scores, virtue and vice pooled per foundation**" in text
    assert out["word_pair"] is None and out["three_way_models"] is None  # big_two's pieces
