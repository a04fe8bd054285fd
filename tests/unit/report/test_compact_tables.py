"""rmbook.report.compact_tables: the chapters' widest tables in a few named columns (#43 item 3: 12 to 19 raw columns
ran 40-600 px past the text column at 1280 px), each related pair of numbers in one cell, nothing a reader needs lost,
and a missing value said as "—"."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from rmbook.report import compact_tables as ct

NAN = float("nan")


def test_blindings_answering_table_pairs_each_measure_with_its_spread():
    raw = pd.DataFrame([
        {"model": "smollm2", "reward_kind": "LM log-prob", "n_prompts": 100, "yes_no_mass": 0.483,
         "yes_no_mass_min": 0.279, "blinded_p_yes": 0.569, "blinded_template_sd": 0.042, "decisiveness": 0.061,
         "ignore_shift": 0.013, "ignore_abs_shift": 0.028, "agree_informed": 1.0, "replica_p_informed": 0.561,
         "agree_counterfactual": 0.0, "replica_p_counterfactual": 0.371},
        {"model": "an RM", "reward_kind": "RM", "n_prompts": 1200, "yes_no_mass": NAN, "yes_no_mass_min": NAN}])
    view = ct.answering_view(raw)
    assert len(view.columns) == 9 < len(raw.columns)
    lm, rm = view.iloc[0], view.iloc[1]
    assert lm["P(yes) + P(no) (min)"] == "0.483 (0.279)"
    assert lm["blinded P(yes) ± SD over templates"] == "0.569 ± 0.042"
    assert lm["shift when told to ignore (mean |shift|)"] == "0.013 (0.028)"
    assert lm["agrees with the replica, counterfactual (its P)"] == "0 (0.371)"
    assert rm["prompts"] == "1,200" and set(rm.iloc[3:]) == {"—"}  # an RM has no yes/no mass, and no replica here


def test_the_topic_table_keeps_the_null_range_the_direction_and_both_ps():
    raw = pd.DataFrame([{"prompt": "greatest", "topic": "nature", "n_items": 30, "n_flagged": 2, "expected": 4.24,
                         "ratio": 0.471, "null_low": 1.0, "null_high": 8.0, "p_over": 0.96, "p_under": 0.15,
                         "p": 0.31, "p_fdr_within": 0.99, "direction": "", "p_fdr": 0.99}])
    view = ct.topic_view(raw)
    assert list(view.columns) == ["prompt", "topic", "items", "flagged (null: mean [95%])", "ratio", "direction",
                                  "p (FDR)"]
    row = view.iloc[0]  # the null's range is of the flagged count (rmlib.stats.enrichment), not of the ratio
    assert (row["flagged (null: mean [95%])"], row["ratio"]) == ("2 (4.24 [1, 8])", 0.471)
    assert (row["direction"], row["p (FDR)"]) == ("—", "0.31 (0.99)")
    pooled = raw.drop(columns="prompt").assign(ratio_unstratified=3.34, p_fdr_unstratified=0.0004)
    assert ct.topic_view(pooled).iloc[0]["unstratified ratio (p FDR)"] == "3.34 (< 0.001)"


def test_a_published_runs_order_is_one_arrow_and_its_verdict_words():
    raw = pd.DataFrame([
        {"run": "uf 100k BT", "checkpoints": 14, "first_order": "Llama < Gemma < Qwen",
         "final_order": "Gemma < Llama < Qwen", "kendall_w": 0.75, "pair_flips": 1, "pairs": 3,
         "llama_below_gemma": 7, "n_checkpoints": 14, "holds": False, "flip_step": 8000, "persistent": True},
        {"run": "sky 80k GRM", "checkpoints": 1, "first_order": "Llama < Gemma", "final_order": "Llama < Gemma",
         "kendall_w": NAN, "pair_flips": 0, "pairs": 1, "llama_below_gemma": 1, "n_checkpoints": 1, "holds": True,
         "flip_step": pd.NA, "persistent": False}])
    raw["flip_step"] = raw["flip_step"].astype("Int64")
    view = ct.run_orders_view(raw)
    assert len(view.columns) == 6
    flipped, single = view.iloc[0], view.iloc[1]
    assert flipped["order: first → final"] == "Llama < Gemma < Qwen → Gemma < Llama < Qwen"
    assert flipped["Kendall's W (pair flips)"] == "0.75 (1 of 3)"
    assert (flipped["claimed order holds at"], flipped["verdict"]) == ("7 of 14", "flips at step 8,000, for good")
    assert (single["order: first → final"], single["Kendall's W (pair flips)"]) == ("Llama < Gemma", "—")
    assert single["verdict"] == "holds"


def test_slower_pairs_show_each_measure_as_more_vs_less_accurate():
    raw = pd.DataFrame([{"pi0": "random 100", "more_accurate": "F-Lla-8B", "less_accurate": "S-Gem-27B",
                         "accuracy_more": 0.687, "accuracy_less": 0.611, "speed_more_accurate": 0.091,
                         "speed_less_accurate": 0.1, "variance_more_accurate": 1.23, "variance_less_accurate": 1.46,
                         "lower_variance": True, "higher_variance": False, "accuracy_gap": 0.076}])
    view = ct.slower_pairs_view(raw)
    assert len(view.columns) == 7
    row = view.iloc[0]
    assert row["more vs less accurate RM"] == "F-Lla-8B vs S-Gem-27B" and row["accuracy"] == "0.687 vs 0.611"
    assert row["variance under π0"] == "1.23 vs 1.46" and row["slower RM's variance"] == "lower"
    equal = raw.assign(lower_variance=False)
    assert ct.slower_pairs_view(equal).iloc[0]["slower RM's variance"] == "equal"
    with pytest.raises(ValueError):
        ct.slower_pairs_view(raw.drop(columns="accuracy_gap"))


def test_a_word_contrast_keeps_its_panel_and_puts_g_with_its_interval():
    raw = pd.DataFrame([{"model": "MWLR(a‖b)", "foundation": "care", "valence": "negative", "group_a": "virtue",
                         "group_b": "vice", "n_a": 3, "n_b": 3, "mean_a": 8.33, "mean_b": 13.2, "difference": -4.83,
                         "t": -0.78, "p": 0.5, "hedges_g": -0.509, "reject": False, "p_fdr": 0.89,
                         "g_ci_low": -6.55, "g_ci_high": 1.77}])
    view = ct.contrast_view(raw)
    assert list(view.columns) == ["model", "foundation", "valence", "groups (n)", "mean rank", "difference",
                                  "Hedges' g [95% CI]", "p (FDR)"]
    row = view.iloc[0]
    assert (row["groups (n)"], row["mean rank"]) == ("virtue vs vice (3 vs 3)", "8.33 vs 13.2")
    assert (row["Hedges' g [95% CI]"], row["p (FDR)"]) == ("-0.509 [-6.55, 1.77]", "0.5 (0.89)")
    assert ct.contrast_view(raw.assign(reward_kind="MWLR")).columns[-1] == "reward kind"


def test_a_share_row_says_its_count_and_a_pooled_row_has_no_null():
    raw = pd.DataFrame([
        {"source": "bnc", "prompts": "positive", "n_words": 718, "n_cells": 4, "n_positive": 3, "share": 0.75,
         "ci_low": 0.3, "ci_high": 0.95, "n_sig_positive": 2, "n_sig_negative": 0, "null_mean": 0.531,
         "null_low": 0.0, "null_high": 1.0, "p_greater": 0.39},
        {"source": "bnc", "prompts": "all", "n_words": 718, "n_cells": 8, "n_positive": 6, "share": 0.75,
         "ci_low": 0.41, "ci_high": 0.93, "n_sig_positive": 4, "n_sig_negative": 1, "null_mean": NAN,
         "null_low": NAN, "null_high": NAN, "p_greater": NAN}])
    view = ct.share_view(raw)
    assert len(view.columns) == 8
    one, pooled = view.iloc[0], view.iloc[1]
    assert one["positive slopes: share [95% CI]"] == "0.75 [0.3, 0.95] (3 of 4)"
    assert (one["significant + / −"], one["null share [95%]"]) == ("2 / 0", "0.531 [0, 1]")
    assert (pooled["null share [95%]"], pooled["p (share ≥ observed)"]) == ("—", "—")
    assert not any(isinstance(v, float) and math.isnan(v) for v in view.to_numpy().ravel())
