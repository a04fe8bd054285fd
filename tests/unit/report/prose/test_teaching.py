"""rmlib.report.prose.teaching: the good_teachers sentences say what the numbers say."""
from __future__ import annotations

import pandas as pd

from rmlib.report import prose


def _cor(verdicts: dict) -> pd.DataFrame:
    return pd.DataFrame([{"predictor": p, "outcome": "gain_T", "stratum": s, "defined": True, "rho": 0.5,
                          "ci_low": 0.1, "ci_high": 0.9, "verdict": v} for (p, s), v in verdicts.items()])


def test_replication_markdown_reports_each_part_and_where_it_fails():
    cor = _cor({("variance_pi0", "random"): "predicts the opposite", ("variance_pi0", "top"): "predicts",
                ("accuracy_uniform", "uniform"): "does not predict", ("accuracy_uniform", "top"): "does not predict"})
    cor.loc[cor["stratum"] == "random", ["rho", "ci_low", "ci_high"]] = [-0.71, -0.99, -0.03]
    rep = {"n_slower_more_accurate": 3, "n_slower_more_accurate_margin": 2, "accuracy_margin": 0.01,
           "variance_predicts_under": ["top"], "variance_does_not_predict_under": ["random"],
           "variance_reversed_under": ["random"], "variance_not_established_under": [],
           "accuracy_predicts_under": [], "reward_max_predicts_under": []}
    text = prose.teaching.replication_markdown("published", rep, cor)
    assert "(1) in 3 RM pairs" in text and "2 of them with an accuracy lead above 0.01" in text
    assert "under 0 of 2 π_0" in text and "part (1) **replicates**" in text
    assert "predicts the gain under 1 of 2 non-uniform π_0 (top)" in text
    # an interval wholly below 0 is the claim reversed, not a failure to replicate
    assert "**replicates** under top (ρ = +0.50 [+0.10, +0.90])" in text
    assert "is **reversed** under random (ρ = -0.71 [-0.99, -0.03]" in text and "does not replicate" not in text
    unclear = prose.teaching.replication_markdown(
        "published", {**rep, "variance_reversed_under": [], "variance_not_established_under": ["random"]},
        cor.assign(verdict="does not predict"))
    assert "is **not established** under random" in unclear and "reversed" not in unclear
    close = prose.teaching.replication_markdown("published", {**rep, "n_slower_more_accurate_margin": 0}, cor)
    assert "part (1) **is not established** (every such pair's accuracy lead is within 0.01)" in close
    none = prose.teaching.replication_markdown("published", {**rep, "n_slower_more_accurate": 0,
                                                             "n_slower_more_accurate_margin": 0}, cor)
    assert "**does not replicate** (no such pair)" in none


def test_slower_markdown_gives_the_share_the_variance_explains_per_pi0():
    pairs = pd.DataFrame({"pi0": ["uniform", "uniform", "top"], "accuracy_gap": [0.002, 0.05, 0.03],
                          "lower_variance": [False, False, True]})
    counts = pd.DataFrame({"RM pairs": [3, 3], "more accurate, slower": [2, 1], "... with lower variance": [0, 1]},
                          index=pd.Index(["uniform", "top"], name="pi0"))
    text = prose.teaching.slower_markdown(pairs, counts, 1)
    assert "In 3 of 6 RM pairs" in text and "in 2 of them its accuracy lead exceeds 0.01" in text
    assert "In 1 of the 3 the slower RM also has the lower variance" in text
    assert "0 of 2 under *uniform*; 1 of 1 under *top*" in text


def test_planted_markdown_says_which_rm_teaches_faster():
    table = pd.DataFrame({"model": ["accurate", "noisy"], "accuracy_uniform": [1.0, 0.8], "variance_pi0": [0.01, 0.9],
                          "gain_T": [0.05, 0.4], "eventual_gain": [1.2, 0.9]})
    text = prose.teaching.planted_markdown(table, "published", gain_steps=50, kl_coef=1.0)
    assert "The less accurate RM teaches faster" in text and "slow, not wrong" in text
    slow = prose.teaching.planted_markdown(table.assign(gain_T=[0.5, 0.4]), "published", gain_steps=50, kl_coef=1.0)
    assert "does not teach faster here" in slow
