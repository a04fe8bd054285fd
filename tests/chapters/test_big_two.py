"""The Big Two chapter, published and compute: family tests, LOVE vs freedom, the three-way term."""
from __future__ import annotations


def test_big_two_chapter_published_and_compute(chapter, check_published_profile):
    c = chapter("big_two")
    out, text = c.results, c.markdown
    check_published_profile(out["results"]["published"], 2)
    comp = out["results"]["compute"]
    assert comp["unit"] == "prompt" and comp["models_per_family"] == {"Gemma": 2, "Llama": 1, "Qwen": 1}
    agreement = out["direction_agreement"]
    assert agreement["panels"] == 4 and agreement["implicit"] is True and agreement["unit"] == "prompt"
    assert f"**same sign in {agreement['same']} of 4 panels**" in text  # the sentence states the section
    assert out["scored"]["computed"]["n_models"] == 4 and out["left_out"]["families"] == {}
    assert "after FDR" in text and "LM log-prob (implicit reward)" in text
    assert "compare these particular models" in text
    # LOVE vs freedom: ranks among the run's words under the "greatest thing ever" prompt, for every published RM
    pairs = {(x["nickname"], x["word"]): x for x in out["love_freedom"]}
    assert len(pairs) == 10 * 2 and all(1 <= x["rank"] <= x["n_words"] == 10 for x in pairs.values())
    assert pairs[("R-Gem-2B", "love")]["rank"] < pairs[("R-Gem-2B", "freedom")]["rank"]
    assert pairs[("R-Lla-3B", "freedom")]["rank"] < pairs[("R-Lla-3B", "love")]["rank"]
    assert "**R-Gem-2B** ranks *love* 1" in text and out["word_pair"]["scored"] is True
    assert [m["nickname"] for m in out["word_pair"]["named"]] == ["R-Gem-2B", "R-Lla-3B"]
    assert out["three_way_models"]["claimed_way"] == (out["three_way_models"]["difference"] > 0)
    three = out["three_way"]
    assert three["term"].count(":") == 2 and 0 <= three["p"] <= 1
