"""The Big Two chapter, published and compute: family tests, LOVE vs freedom, the three-way term."""
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


def test_big_two_chapter_published_and_compute(chapter):
    c = chapter("big_two")
    out, text = c.results, c.markdown
    _check_published(out["results"]["published"], 2)
    comp = out["results"]["compute"]
    assert comp["unit"] == "prompt" and comp["models_per_family"] == {"Gemma": 2, "Llama": 1, "Qwen": 1}
    assert out["direction_agreement"]["panels"] == 4
    assert "after FDR" in text and "LM log-prob (implicit reward)" in text
    assert "compare these particular models" in text
    # LOVE vs freedom: ranks among the run's words under the "greatest thing ever" prompt, for every published RM
    pairs = {(x["nickname"], x["word"]): x for x in out["love_freedom"]}
    assert len(pairs) == 10 * 2 and all(1 <= x["rank"] <= x["n_words"] == 10 for x in pairs.values())
    assert pairs[("R-Gem-2B", "love")]["rank"] < pairs[("R-Gem-2B", "freedom")]["rank"]
    assert pairs[("R-Lla-3B", "freedom")]["rank"] < pairs[("R-Lla-3B", "love")]["rank"]
    assert "**R-Gem-2B** ranks *love* 1" in text
    three = out["three_way"]
    assert three["term"].count(":") == 2 and 0 <= three["p"] <= 1
