"""The mere-exposure chapter: shares of positive slopes against shuffled baselines, the model-level headline."""
from __future__ import annotations

import pytest

import rmlib.data as data
from rmbook.analysis import words
from rmbook.chapters.mere_exposure import analysis as exposure


SMOLLM2 = "smollm2-135m-instruct"


def test_mere_exposure_published_tiny(chapter):
    from rmlib.stats import cell_slopes, share_positive

    c = chapter("mere_exposure")

    r, md, n_charts = c.results, c.markdown, c.n_charts
    assert r["mode"] == "published" and r["level"] == "word" and len(r["models"]) == 2
    assert r["matchings"] == ["bnc", "bnc_lemma", "wordfreq"]
    assert r["coverage"]["bnc"] < r["coverage"]["wordfreq"]  # BNC lists only common words
    assert r["beside"] is None and "Beside the paper RMs" not in c.markdown  # published: the paper RMs are the run
    rows = {(x["source"], x["prompts"]): x for x in r["by_valence"]}
    assert set(rows) == {(s, pv) for s in ["bnc", "bnc_lemma", "wordfreq", "wordfreq, BNC words only"]
                         for pv in ("positive", "negative", "all")}
    # the chapter's shares are the library's shares, per prompt valence
    scores = data.published_word_scores(r["models"], r["prompts"]).assign(label=lambda d: d["nickname"])
    d = exposure.exposure_frame(scores).dropna(subset=["zipf_wordfreq"])
    for pv in ("positive", "negative"):
        cells = cell_slopes(d[d["prompt_valence"] == pv], y="y", x="zipf_wordfreq", covariates=["valence"],
                            groups=["label", "prompt_key"])
        row = rows[("wordfreq", pv)]
        assert row["share"] == pytest.approx(share_positive(cells)["share"])
        assert 0 <= row["null_low"] <= row["null_mean"] <= row["null_high"] <= 1
        assert f"{row['n_positive']} of {row['n_cells']} cells ({row['share']:.0%}; wordfreq;" in md
    # each split by dictionary too, and the headline is stated per valence across the matchings
    assert {(x["dictionary"], x["prompts"]) for x in r["by_dictionary"]} == {
        (dic, pv) for dic in ("Big Two", "MFD2") for pv in ("positive", "negative")}
    assert md.count("By the claims page's rule") == 2  # the model-level headline, per prompt valence
    by_model = {(x["source"], x["prompts"]): x for x in r["by_model"]}
    assert set(by_model) == {(s, pv) for s in r["matchings"] for pv in ("positive", "negative")}
    assert all(x["n_above"] + x["n_below"] <= x["n_models"] == 2 for x in by_model.values())
    # published mode has no base-LM log-probs: the LM-control section is left out, not shown empty (#28 item 4)
    assert "Does the RM double-count" not in md and r["kl"] == [] and n_charts >= 3
    assert len(r["pooled"]) == 2 * 3  # models x frequency matchings
    # the sections the sentences are rendered from state the stored tables
    assert r["scores"]["n_models"] == 2 and r["scores"]["n_words"] > 0 and r["lm_control"]["has_reference"] is False
    assert [v["prompts"] for v in r["verdicts"]["valences"]] == ["positive", "negative"]
    assert all([(x["source"], x["n_above"], x["n_below"]) for x in v["rows"]]
               == [(x["source"], x["n_above"], x["n_below"]) for x in r["by_model"] if x["prompts"] == v["prompts"]]
               for v in r["verdicts"]["valences"])
    assert r["dictionaries"]["n_combinations"] == len(r["by_dictionary"])
    assert f"In {r['shares']['n_wide']} of {r['shares']['n_rows']} rows" in md or r["shares"]["n_wide"] == 0


def test_mere_exposure_compute_smollm2(chapter, needs_smollm2):
    c = chapter("mere_exposure", MODE="compute", MODELS=[SMOLLM2], PROMPT_KEYS=["greatest", "worst"], N_SHUFFLES=10)
    r, md = c.results, c.markdown
    assert r["level"] == "token" and r["reward_kinds"] == ["LM log-prob (implicit reward)"]
    # the implicit RM's reward is its own log-prob: the KL comparison is the identity, and the prose says so
    assert len(r["kl"]) == 2 and all(k["rho_reward_vs_lm_logprob"] == pytest.approx(1.0) for k in r["kl"])
    assert all(k["reward_slope"] == pytest.approx(k["lm_slope"]) for k in r["kl"])
    assert "No trained RM was given" in md and r["lm_control"]["n_rm_cells"] == 0 and r["lm_control"]["n_lm_cells"] == 2
    # #43 item 7: the paper RMs stay on the page, measured on the same prompt wordings and words
    near = r["beside"]
    assert near["prompts"] == ["greatest", "worst"] and len(near["rows"]) == 2
    assert {p["measure"] for p in near["rows"]} == {"positive prompts", "negative prompts"}
    assert all(p["n_reference"] == 10 and 0 < p["n_words"] for p in near["rows"])
    assert "Beside the paper RMs" in md and f"on {near['rows'][0]['n_words']:,} words" in md
