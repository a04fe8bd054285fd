"""The good_teachers chapter on tiny parameters: published mode, compute mode with a trained tiny RM, an absent RM."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


def test_good_teachers_published_tiny(chapter, data_ready):
    r = chapter("good_teachers")
    out, text = r.results, r.markdown
    assert out["settings"] == ["published"] and out["run"]["absent"] == {}
    table = pd.DataFrame(out["tables"]["published"])
    assert len(table) == 10 * 3 and table["model"].nunique() == 10
    assert table["accuracy_uniform"].between(0.5, 1).all() and table["accuracy_pi0"].between(0, 1).all()
    uniform = table[table["pi0"] == "uniform"]
    np.testing.assert_allclose(uniform["variance_pi0"], 1.0)               # standardised over all items
    np.testing.assert_allclose(uniform["accuracy_pi0"], uniform["accuracy_uniform"])
    assert (table["objective_min_increase"] > -1e-9).all()
    top = out["top_rm"]
    assert any(p.startswith(f"top 100 of {top}") for p in table["pi0"])
    # the most accurate RM holds the top π_0, so it separates that policy's items less than the others do
    under_top = table[table["pi0"].str.startswith("top")].set_index("model")["variance_pi0"]
    assert under_top[top] < under_top.median()
    # the exact accuracy agrees with sampling pairs from π_0 (5,000 pairs: SE ≈ 0.007; 30 estimates)
    assert out["accuracy"]["sampled_gap"] < 0.035
    cor = pd.DataFrame(out["correlations"]["published"])
    var_uniform = cor[(cor["predictor"] == "variance_pi0") & (cor["stratum"] == "uniform")]
    assert not var_uniform["defined"].any() and var_uniform["rho"].isna().all()
    assert {"predicts", "does not predict", "predicts the opposite"} >= set(cor.loc[cor["defined"], "verdict"])
    # the planted case: perfectly accurate but flat under π_0 vs noisy
    planted = pd.DataFrame(out["planted"]).set_index("model")
    assert planted.loc["accurate", "accuracy_uniform"] == 1.0 > planted.loc["noisy", "accuracy_uniform"]
    assert planted.loc["noisy", "gain_T"] > planted.loc["accurate", "gain_T"]
    assert "The less accurate RM teaches faster" in text
    pairs = out["slower_but_more_accurate"]["published"]
    assert f"In {len(pairs)} of 135 RM pairs" in text
    rep = out["replication"]["published"]
    assert rep["n_slower_more_accurate"] == len(pairs) > 0 and "part (1) **replicates**" in text
    assert 0 < rep["n_slower_more_accurate_margin"] <= len(pairs) and rep["accuracy_margin"] == 0.01
    # under the uniform π_0 every variance is 1: the variance mechanism explains none of its inversions
    uniform = next(r for r in rep["variance_explains"] if r["pi0"] == "uniform")
    assert uniform["n_lower_variance"] == 0 and rep["n_slower_lower_variance"] == sum(
        r["n_lower_variance"] for r in rep["variance_explains"])
    if rep["variance_reversed_under"]:
        assert "is **reversed** under" in text
    non_uniform = {p for p in table["pi0"] if p != "uniform"}
    assert set(rep["variance_predicts_under"]) | set(rep["variance_does_not_predict_under"]) == non_uniform
    assert "Compute mode did not run" in text
    # the sentences are rendered from the sections stored with the numbers (#26 item 2)
    assert out["run"] == {"mode": "published", "absent": {}, "compute_ran": False} and out["compute"] is None
    assert out["setup"]["top_rm"] == top and f"holds the top 100 items of **{top}**" in text
    assert not {"absent_models", "sampled_accuracy_max_gap"} & set(out)  # each number once (#26)
    assert out["slower"]["published"]["n_pairs"] == len(pairs) and out["planted_case"]["noisy_faster"]
    assert rep["n_variance_strata"] == len(non_uniform) and rep["part1"] == "replicates"
    assert "**published**, gain after" in text and "The objective J rose at every step" in text


@pytest.fixture(scope="module")
def compute_run(chapter):
    """The chapter in compute mode: a tiny-llama policy, an RM trained from tiny-llama and a tiny LM as proxies (the
    RM is trained into the run's own isolated cache, where the chapter run finds it)."""
    from rmlib.train import TrainConfig, train

    def train_rm():
        train(TrainConfig(name="gt-tiny", base="tiny-llama", sources=["synthetic_marker"], n_pairs=32, n_test=16,
                          steps=8, batch_size=8, lr=2e-3, max_len=96, tuning="full", save_every=8, dtype="float32",
                          save_dtype="float32"), progress=False)

    rm_id = "local:gt-tiny"
    run = chapter("good_teachers", isolated_cache=True, MODE="compute",
                  MODELS=[rm_id, "tiny-gemma3", "local:no-such-rm"], POLICY="tiny-llama",
                  GROUND_TRUTH="tiny-qwen2", prepare=train_rm)
    return run.results, run.markdown, rm_id


def test_good_teachers_compute_tiny(compute_run):
    out, text, rm_id = compute_run
    assert out["settings"] == ["compute"] and list(out["run"]["absent"]) == ["local:no-such-rm"]
    assert "Absent models" in text and "`local:no-such-rm`" in text and "make chapter NB=finetuning" in text
    cov = pd.DataFrame(out["compute_coverage"]).set_index("model")
    assert cov.loc[rm_id, "matched_by"] == "token id" and cov.loc[rm_id, "share_tokens"] == 1.0
    assert cov.loc["tiny-gemma3", "matched_by"] == "decoded text"
    assert 0 < cov.loc["(all models)", "share_pi0_mass"] <= 1
    table = pd.DataFrame(out["tables"]["compute"])
    assert set(table["model"]) == {rm_id, "tiny-gemma3"}
    assert set(table["pi0"]) == {"policy (tiny-llama)", "uniform"}
    assert (table["objective_min_increase"] > -1e-9).all()
    # two proxies: too few for a rank correlation, and the page says so
    assert out["correlations"] == {} and "too few for a rank" in text
    assert "The policy is **tiny-llama**" in text and "tiny-qwen2 (LM log-prob" in text
    assert "teaches fastest of the 2 proxies" in text
    assert out["compute"]["policy"] == "tiny-llama" and out["compute"]["n_proxies"] == 2
    assert out["run"]["compute_ran"] and "The compute-mode analysis uses the models that are present" in text


def test_good_teachers_skips_compute_mode_when_its_models_are_absent(chapter, data_ready):
    r = chapter("good_teachers", MODE="both", MODELS=["local:no-such-rm"])
    assert r.results["settings"] == ["published"] and "local:no-such-rm" in r.results["run"]["absent"]
    assert "The compute-mode analysis is skipped" in r.markdown
