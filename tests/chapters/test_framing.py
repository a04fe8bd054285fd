"""The framing chapter: the two halves per model, computed as the library computes them, and said in the prose."""
from __future__ import annotations

import pytest

import rmlib.data as data
from rmbook.chapters.framing import analysis as framing


SMOLLM2 = "smollm2-135m-instruct"


def test_framing_published_tiny(chapter):
    c = chapter("framing")
    r, md, n_charts = c.results, c.markdown, c.n_charts
    assert r["mode"] == "published" and r["level"] == "word" and r["reward_kinds"] == ["RM score"]
    assert len(r["models"]) == 2 and sorted(r["contrast"]) == ["afinn", "vader", "warriner"]
    # the chapter's numbers are the library's numbers
    params = data.published_word_scores(r["models"], r["prompts"])
    params["label"] = params["nickname"]
    ff = framing.framing_frame(params, "afinn", "z")
    fc = framing.framing_contrast(ff, groups=["label"]).set_index("label")
    for row in r["contrast"]["afinn"]:
        assert row["framing"] == pytest.approx(fc.loc[row["label"], "framing"])
        assert row["framing_ci_low"] < row["framing"] < row["framing_ci_high"]
    # each half of the claim is reported per model, with its own CI, and counted over models and cells
    for row in r["contrast"]["afinn"]:
        assert row["pos_prompts"] == pytest.approx(row["s_pp"] - row["s_np"])
        assert row["neg_prompts"] == pytest.approx(row["s_nn"] - row["s_pn"])
        assert row["framing"] == pytest.approx((row["pos_prompts"] + row["neg_prompts"]) / 2)
    found = r["halves_found"]
    halves = found["summary"]
    for h in ("pos_prompts", "neg_prompts"):
        assert sum(halves[h][k] for k in ("holds", "reversed", "unclear")) == halves[h]["n"] == 2
        assert f"for **{halves[h]['holds']} of 2** models" in md
    cells = {c["half"]: c for c in r["cell_counts_by_half"]}
    assert cells["pos_prompts"]["n_cells"] == cells["neg_prompts"]["n_cells"] == 2 * 2  # models x prompts of a valence
    assert (found["pos_cells"], found["neg_congruent_steeper"]) == (cells["pos_prompts"]["n_cells"],
                                                                  cells["neg_prompts"]["n_congruent_steeper"])
    assert f"Prompt by prompt: {found['neg_congruent_steeper']} of {found['neg_cells']} cells." in md
    # the two scored RMs tilt toward positive words: opposite halves, reported as such (not as "no effect")
    assert halves["pos_prompts"]["reversed"] == 0 and halves["neg_prompts"]["reversed"] == 2
    assert "opposite signs" in md and "averages such halves to near zero" in md
    # the influential words explain the weak half, and the page reads rewards, not oriented scores, for word lists
    assert r["weak_half"] == "neg_prompts" and "Why the lexicons disagree" in md
    why = r["disagreement"]
    assert why["weak_prompts"] == "negative prompts" and f"*{why['down_words'][0]}*" in md
    assert r["scored"]["n_models"] == 2 and f"for {r['scored']['n_words']:,} distinct dictionary words" in md
    afinn_down = [w for w in r["influential_words"]["afinn"] if w["half"] == "neg_prompts"
                  and w["direction"] == "pulls down"]
    assert afinn_down[0]["valence"] == -5 and afinn_down[0]["mean_y"] < -1  # an obscenity the RMs do not name
    assert "most fitting a *worst*" not in md and "highest-scored answers" in md
    assert "Word level, published scores" in md and n_charts >= 4
    assert r["beside"] is None and "Beside the paper RMs" not in md  # published mode: the paper RMs are the run


def test_framing_compute_smollm2(chapter, needs_smollm2):
    c = chapter("framing", MODE="compute", MODELS=[SMOLLM2], PROMPT_KEYS=["greatest", "worst"],
                AFFECT_SOURCES=["afinn"])
    r, md = c.results, c.markdown
    assert r["mode"] == "compute" and r["level"] == "token"
    assert r["reward_kinds"] == ["LM log-prob (implicit reward)"]
    assert "Token level, computed now" in md and "implicit" in md
    row = r["contrast"]["afinn"][0]
    assert row["label"] == f"{SMOLLM2} (implicit)" and row["n_words"] > 500
    # #43 item 7: the paper RMs stay on the page, measured on the same prompt wordings and words
    near = r["beside"]
    assert near["prompts"] == ["greatest", "worst"] and near["missing"] == []
    assert [p["measure"] for p in near["rows"]] == ["h+ (positive prompts)", "h− (negative prompts)"]
    assert all(p["label"] == row["label"] and p["n_reference"] == 10 for p in near["rows"])
    first = near["rows"][0]
    assert f"**{first['label']}**, h+ (positive prompts): {first['estimate']:.3f}, {first['side']}" in md
    assert "Beside the paper RMs" in md and "give a placement, not a test" in md
