"""rmbook.chapters.finetuning.analysis: plans, gaps, the imprint table and the ablation statistics from known frames
(training and evaluation of tiny RMs run in tests/integration and tests/chapters/test_finetuning.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from rmbook.chapters.finetuning import analysis as ft


def test_training_plan_main_runs_then_ablations_of_the_first_base():
    plan = ft.training_plan(["a", "b"], ["s1"], [0, 1], 32, ablation_sources=["s2"], quantity_pairs=[16, 32])
    assert plan == [("a", ("s1",), 0, 32), ("a", ("s1",), 1, 32), ("b", ("s1",), 0, 32), ("b", ("s1",), 1, 32),
                    ("a", ("s2",), 0, 32), ("a", ("s2",), 1, 32), ("a", ("s1",), 0, 16)]   # 32 is the main size
    assert ft.trajectory_runs(plan, ["s1"], 32, 0) == [("a", ("s1",), 0, 32), ("b", ("s1",), 0, 32)]
    assert ft.run_name("a", ("s1", "s2"), 3, 16, 8, 4, "lora") == "ft-a-s1+s2-n16-s3-8x4-lora"


def _profiles():
    rows = []
    for run, base, seed in (("r1", "A", 0), ("r2", "A", 1), ("r3", "B", 0), ("r4", "B", 1)):
        for step in (4, 8):
            for prompt in ("positive", "negative"):
                for cat, share in (("Agency", 0.3 + 0.01 * seed + (0.1 if base == "B" else 0) + 0.001 * step),
                                   ("Communion", 0.5)):
                    rows.append({"run": run, "base_model": base, "seed": seed, "step": step, "prompt_label": prompt,
                                 "category": cat, "median_rank_share": share})
    return pd.DataFrame(rows)


def test_final_rows_and_category_gaps():
    p = _profiles()
    final = ft.final_rows(p)
    assert set(final["step"]) == {8} and len(final) == len(p) // 2
    g = ft.category_gaps(final, ["base_model", "seed"], "Agency", "Communion")
    row = g[(g.base_model == "B") & (g.seed == 1) & (g.prompt_label == "positive")]
    assert row["gap"].item() == pytest.approx(0.3 + 0.01 + 0.1 + 0.008 - 0.5)


def test_imprint_table_t_interval_and_sign_agreement():
    rm = ft.category_gaps(ft.final_rows(_profiles()), ["base_model", "seed"], "Agency", "Communion")
    lm = pd.DataFrame({"base_model": ["A", "A", "B", "B"], "prompt_label": ["positive", "negative"] * 2,
                       "base_lm_gap": [-0.1, 0.2, -0.3, -0.3]})
    agg = ft.imprint_table(rm, lm)
    a = agg[(agg.base_model == "A") & (agg.prompt_label == "positive")].iloc[0]
    x = rm[(rm.base_model == "A") & (rm.prompt_label == "positive")]["gap"]
    assert (a.ci_low, a.ci_high) == pytest.approx(sps.t.interval(0.95, 1, loc=x.mean(), scale=sps.sem(x)))
    assert agg.set_index(["base_model", "prompt_label"])["same_sign_as_base"].to_dict() == {
        ("A", "negative"): False, ("A", "positive"): True, ("B", "negative"): True, ("B", "positive"): True}
    assert ft.spread(agg, "rm_gap").to_dict() == pytest.approx({"negative": 0.1, "positive": 0.1})


def test_one_way_gap_anova_needs_seeds():
    rm = ft.category_gaps(ft.final_rows(_profiles()), ["base_model", "seed"], "Agency", "Communion")
    out = ft.one_way_gap_anova(rm, "base_model")
    assert list(out["prompt_label"]) == ["negative", "positive"] and (out["p"] < 0.05).all()
    assert ft.one_way_gap_anova(rm[rm.seed == 0], "base_model").empty


def test_first_to_last_and_gap_correlation():
    g = ft.category_gaps(_profiles(), ["base_model", "seed", "step"], "Agency", "Communion")
    moved = ft.first_to_last(g[g.seed == 0], "step", ["base_model", "prompt_label"])
    assert moved["gap"].to_numpy() == pytest.approx(np.full(4, 0.004))
    q = pd.DataFrame({"prompt_label": ["p"] * 3 + ["n"] * 3, "n_pairs": [8, 16, 32] * 2,
                      "gap": [0.1, 0.2, 0.3, 0.5, 0.5, 0.5]})
    rho = ft.gap_correlation(q, "n_pairs")
    assert rho["p"] == pytest.approx(1.0) and np.isnan(rho["n"])


def test_published_gaps_and_their_change_with_quantity():
    ranks = pd.DataFrame([{"data_source": "ultrafeedback", "quantity_k": q, "method": "BT", "base_family": f,
                           "category": c, "median_rank": v, "final": True}
                          for q, f, c, v in ((27, "Llama", "Agency", 10), (27, "Llama", "Communion", 20),
                                             (100, "Llama", "Agency", 15), (100, "Llama", "Communion", 18))]
                         + [{"data_source": "ultrafeedback", "quantity_k": 27, "method": "BT", "base_family": "Llama",
                             "category": "Agency", "median_rank": 99, "final": False}])
    final = ft.published_final_gaps(ranks)
    assert list(final["agency_minus_communion"]) == [-10, -3]
    assert ft.published_quantity_change(final).to_dict() == {"Llama": 7}


def test_accuracy_variance_correlation_nan_when_too_few_or_constant():
    m = pd.DataFrame({"accuracy": [0.5, 0.6, 0.9, 0.7], "reward_var_whitened": [1.0, 2.0, 4.0, 3.0]})
    assert ft.accuracy_variance_correlation(m) == pytest.approx((1.0, 0.0))
    assert np.isnan(ft.accuracy_variance_correlation(m.head(2))[0])
    assert np.isnan(ft.accuracy_variance_correlation(m.assign(accuracy=0.5))[0])
