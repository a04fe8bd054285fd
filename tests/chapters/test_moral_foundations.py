"""The Moral Foundations chapter: panels by foundation x virtue/vice, and by foundation as the authors test it."""
from __future__ import annotations

import pytest


def _check_published(pub, n_categories, n_words_note=None):
    assert pub["unit"] == "model" and pub["models_per_family"] == {"Gemma": 4, "Llama": 6}
    assert pub["n_panels"] == n_categories * 2
    # the FDR count agrees with the panel table it summarises
    assert pub["n_significant_fdr"] == sum(p["p_fdr"] < 0.05 for p in pub["panels"])
    a = pub["anova"]
    assert a["category"]["df"] == n_categories - 1 and a["model"]["df"] == 9
    # median ranks: 10 models x 54 prompts x n_categories rows, minus one cell mean per category x valence x model
    assert a["category"]["df_resid"] == 10 * 54 * n_categories - n_categories * 2 * 10
    assert pub["mixed"]["n_groups"] == 10 and pub["min_attainable_p"] == pytest.approx(2 / 210)


def test_moral_foundations_chapter(chapter):
    c = chapter("moral_foundations")
    out, text = c.results, c.markdown
    _check_published(out["results"]["published"], 10)
    foundations = out["by_foundation"]  # virtue and vice pooled per foundation, as the authors test it
    assert foundations["n_panels"] == 5 * 2 and foundations["unit"] == "model"
    assert out["results"]["compute"]["n_panels"] == 20
    assert "Under positive prompts" in text and "seeded sample of 20 words" in text
