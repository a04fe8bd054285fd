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
    rep = {"n_slower_more_accurate": 3, "variance_predicts_under": ["top"],
           "variance_does_not_predict_under": ["random"], "accuracy_predicts_under": [],
           "reward_max_predicts_under": []}
    text = prose.teaching.replication_markdown("published", rep, cor)
    assert "(1) in 3 RM pairs" in text and "under 0 of 2 π_0" in text and "part (1) **replicates**" in text
    assert "predicts the gain under 1 of 2 non-uniform π_0 (top)" in text
    assert "**does not replicate** under random (it does under top)." in text
    none = prose.teaching.replication_markdown("published", {**rep, "n_slower_more_accurate": 0}, cor)
    assert "**does not replicate** (no such pair)" in none


def test_planted_markdown_says_which_rm_teaches_faster():
    table = pd.DataFrame({"model": ["accurate", "noisy"], "accuracy_uniform": [1.0, 0.8], "variance_pi0": [0.01, 0.9],
                          "gain_T": [0.05, 0.4], "eventual_gain": [1.2, 0.9]})
    text = prose.teaching.planted_markdown(table, "published", gain_steps=50, kl_coef=1.0)
    assert "The less accurate RM teaches faster" in text and "slow, not wrong" in text
    slow = prose.teaching.planted_markdown(table.assign(gain_T=[0.5, 0.4]), "published", gain_steps=50, kl_coef=1.0)
    assert "does not teach faster here" in slow
