"""The implicit_vs_explicit chapter on tiny models: both RMs trained on identical data, the planted marker learnt by
both, the evaluation sets, the paired gaps, the displacement record and a verdict computed from them."""
from __future__ import annotations

import pandas as pd


def test_implicit_vs_explicit_tiny(chapter, data_ready):
    r = chapter("implicit_vs_explicit")
    out, text = r.results, r.markdown
    ex, im = out["runs"]["ex"], out["runs"]["im"]
    assert ex["data_hash"] == im["data_hash"] and out["same_order"] and "**identical**" in text
    assert im["objective"] == "dpo" and "objective" not in ex and ex["steps"] == im["steps"] == 16
    assert not out["ex_reused"] and "was trained here" in text  # an isolated cache holds no finetuning run
    assert out["training"]["same_data"] and f"train on {out['training']['n_pairs']} pairs of synthetic_marker" in text
    sets = out["sets"]
    assert sets["domain:hh_rlhf_harmless"] == 24 and 16 <= sets["in_distribution"] == sets["token_shift"] <= 24
    acc = pd.DataFrame(out["accuracy"]).set_index(["rm", "eval_set"])
    # the planted marker decides preference: both RMs learn it on held-out prompts
    assert acc.loc[("EX-RM", "in_distribution"), "accuracy"] >= 0.9
    assert acc.loc[("IM-RM", "in_distribution"), "accuracy"] >= 0.9
    assert (acc["ci_low"] <= acc["accuracy"]).all() and (acc["accuracy"] <= acc["ci_high"]).all()
    gaps = pd.DataFrame(out["gaps"]).set_index("eval_set")
    assert set(gaps.index) == {"in_distribution", "token_shift", "domain:hh_rlhf_harmless", "token_shift_drop"}
    d = acc.loc[("IM-RM", "in_distribution"), "accuracy"] - acc.loc[("EX-RM", "in_distribution"), "accuracy"]
    assert abs(gaps.loc["in_distribution", "gap"] - d) < 1e-9
    v = out["verdict"]
    assert v["token"] == "not tested" and out["token_shift_changed"] == 0  # marker pairs: lower-case word lists
    assert "Token-level shift: not tested" in text
    assert f"Token-level shift: {v['token']}" in text and f"Domain shift: {v['domain']}" in text
    assert ("**replicates** for these two RMs" in text) == v["replicates"]
    traj = pd.DataFrame(out["trajectory"])
    assert traj["step"].tolist() == list(range(1, 17)) and traj[["logp_chosen", "logp_rejected"]].notna().all().all()
    # log-ratios to the reference: exactly 0 at the first step (the policy is the reference before any update)
    assert traj.loc[0, ["logratio_chosen", "logratio_rejected"]].abs().max() < 1e-3
    held = pd.DataFrame(out["heldout_logratios"]).set_index("completion")
    assert set(held.index) == {"chosen", "rejected"} and (held["n"] == sets["in_distribution"]).all()
    assert f"On {sets['in_distribution']} held-out pairs after training" in text
    assert out["displacement"]["margin_change"] > 0 and out["displacement"]["margin_grew"]
    h = out["heldout"]
    assert h["n"] == sets["in_distribution"] and f"{h['chosen_mean']:+.2f} nats for the chosen completion" in text
    line = out["accuracy_lines"]["lines"][0]
    assert f"`{line['eval_set']}`: IM-RM {line['im_accuracy']:.3f}" in text and out["verdict"]["base"] == "tiny-llama"
    assert ("**Likelihood displacement**" in text) == out["displacement"]["displaced"]
    assert r.n_charts >= 2 and not r.errors


def test_implicit_vs_explicit_tiny_on_real_text_tests_the_token_shift(chapter, data_ready):
    """The marker pairs are lower-case word lists that no rewrite changes, so the run above never reaches the token
    level. Trained on real pairs (HH-helpful, another source as the domain shift), the rewrite changes pairs and the
    chapter must compute the token-level verdict from the drop difference and show the rewrite's overlap feature."""
    r = chapter("implicit_vs_explicit", SOURCES=["hh_rlhf_helpful"], DOMAIN_SOURCES=["ultrafeedback"], STEPS=4,
                SAVE_EVERY=4, EVAL_DTYPE="float32")  # the course's setting: scored in float32
    out, text = r.results, r.markdown
    assert out["same_order"] and not r.errors
    assert 0 < out["token_shift_changed"] <= 1 and f"changed {out['token_shift_changed']:.0%} of the pairs" in text
    gaps = pd.DataFrame(out["gaps"]).set_index("eval_set")
    drop = gaps.loc["token_shift_drop"]
    assert drop["ci_low"] <= drop["gap"] <= drop["ci_high"] and drop["n"] == out["sets"]["token_shift"]
    expected = ("replicates" if drop["ci_low"] > 0 else "does not replicate" if drop["ci_high"] < 0
                else "not established")
    assert out["verdict"]["token"] == expected  # computed from the interval shown, not "not tested"
    assert f"**Token-level shift: {expected}.**" in text and "Token-level shift: not tested" not in text
    corr = pd.DataFrame(out["overlap"]["table"])
    kept = corr[corr["feature"] == "kept_words (margin change)"]
    assert sorted(kept["rm"]) == ["EX-RM", "IM-RM"] and (kept["n"] == out["sets"]["token_shift"]).all()
    assert "kept_words (margin change)" in text
