"""rmbook.chapters.implicit_vs_explicit.analysis on planted scores: accuracy CIs, paired gaps, overlap reliance,
displacement and the verdict on the published pattern."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.implicit_vs_explicit.analysis import (accuracy_table, displacement, displacement_summary,
                                                           heldout_logratios, overlap_correlations, paired_gaps,
                                                           pattern_verdict)


def planted(n=200, im_token_loss=0.5, im_domain=0.0, seed=0):
    """EX right on 80% of pairs everywhere; IM right on the same pairs in distribution, loses `im_token_loss` of them
    under the token shift and gains `im_domain` (share) on the domain set."""
    rng = np.random.default_rng(seed)
    ex = rng.random(n) < 0.8
    rows = []
    for s in ("in_distribution", "token_shift", "domain:x"):
        im = ex.copy()
        if s == "token_shift":
            im &= rng.random(n) >= im_token_loss
        if s == "domain:x" and im_domain:
            im |= rng.random(n) < im_domain
        for rm, ok in (("EX", ex), ("IM", im)):
            overlap = rng.random(n)
            margin = np.where(ok, 1.0, -1.0) * (0.5 + overlap)
            rows.append(pd.DataFrame({"rm": rm, "eval_set": s, "pair_id": np.arange(n), "margin": margin,
                                      "correct": ok.astype(float), "chosen_rejected_overlap": overlap,
                                      "kept_words": rng.random(n)}))
    return pd.concat(rows, ignore_index=True)


def test_accuracy_table_has_cis_around_the_planted_accuracy():
    t = accuracy_table(planted(), n_resamples=500).set_index(["rm", "eval_set"])
    ex = t.loc[("EX", "in_distribution")]
    assert ex["n"] == 200 and ex["ci_low"] < ex["accuracy"] < ex["ci_high"] and abs(ex["accuracy"] - 0.8) < 0.08
    assert t.loc[("IM", "token_shift"), "accuracy"] < t.loc[("EX", "token_shift"), "accuracy"] - 0.2
    perfect = accuracy_table(pd.DataFrame({"rm": "A", "eval_set": "s", "correct": [1.0] * 10}))
    assert perfect[["accuracy", "ci_low", "ci_high"]].iloc[0].tolist() == [1.0, 1.0, 1.0]  # every resample is 1


def test_planted_token_reliance_replicates_the_published_pattern():
    g = paired_gaps(planted(), "IM", "EX", n_resamples=500).set_index("eval_set")
    assert g.loc["in_distribution", "gap"] == 0 and g.loc["domain:x", "gap"] == 0
    assert g.loc["token_shift_drop", "ci_low"] > 0.2  # IM loses more under the rewrite
    v = pattern_verdict(g.reset_index())
    assert v == {"token": "replicates", "domain": "replicates", "domain_margin": 0.05,
                 "domain_sets": {"x": "comparable or better"}, "domain_worse_sets": [], "replicates": True,
                 "below_chance": []}
    assert pattern_verdict(g.reset_index(), changed_share=0.0)["token"] == "not tested"


def test_no_token_reliance_is_not_called_a_replication():
    v = pattern_verdict(paired_gaps(planted(im_token_loss=0.0), "IM", "EX", n_resamples=500))
    assert v["token"] != "replicates" and not v["replicates"]
    worse = planted(im_token_loss=0.0)
    worse.loc[(worse.rm == "IM") & (worse.eval_set == "domain:x"), "correct"] = 0.0
    v = pattern_verdict(paired_gaps(worse, "IM", "EX", n_resamples=500))
    assert v["domain"] == "does not replicate" and v["domain_worse_sets"] == ["x"]
    assert v["domain_sets"] == {"x": "worse"}
    with pytest.raises(ValueError, match="no scores"):
        paired_gaps(planted(), "IM", "DPO")


def test_the_domain_half_needs_its_interval_above_the_margin_and_an_rm_above_chance():
    """"Comparable or better" is a non-inferiority claim: a domain CI that spans -0.05 is not established
    (the old rule counted any CI not below 0), and a set where an RM is below chance is not counted."""
    def gaps(*rows):
        return pd.DataFrame([{"eval_set": f"domain:{s}", "gap": (lo + hi) / 2, "ci_low": lo, "ci_high": hi}
                             for s, lo, hi in rows])
    g = gaps(("a", -0.03, 0.11), ("b", -0.10, 0.04), ("c", -0.21, -0.07))
    v = pattern_verdict(g)
    assert v["domain_sets"] == {"a": "comparable or better", "b": "not established", "c": "worse"}
    # the claims page's share rule, one bar both ways (#38): 1 of 3 comparable and 1 worse is mixed; it would take
    # 75% of the sets worse to fail, as it takes 75% comparable to hold
    assert v["domain"] == "mixed" and v["domain_worse_sets"] == ["c"] and not v["replicates"]
    assert pattern_verdict(gaps(("a", -0.03, 0.11), ("d", -0.02, 0.12), ("c", -0.21, -0.07)))["domain"] == "mixed"
    assert pattern_verdict(gaps(("b", -0.10, 0.04)))["domain"] == "not established"
    assert pattern_verdict(g, margin=0.15)["domain_sets"] == {"a": "comparable or better",
                                                             "b": "comparable or better", "c": "not established"}
    acc = pd.DataFrame([{"rm": "EX", "eval_set": "domain:a", "accuracy": 0.35, "ci_low": 0.28, "ci_high": 0.43}])
    low = pattern_verdict(gaps(("a", -0.03, 0.11)), acc=acc)
    assert low["domain_sets"] == {"a": "not established (below chance)"} and low["domain"] == "not established"
    with pytest.raises(ValueError, match="margin"):
        pattern_verdict(g, margin=0)


def test_overlap_correlations_find_a_planted_dependence():
    s = planted()
    c = overlap_correlations(s)
    assert set(c["feature"]) == {"chosen_rejected_overlap", "kept_words (margin change)"}
    # margins are sign * (0.5 + overlap): among correct pairs the margin rises with overlap
    ok = s[(s.correct == 1) & (s.eval_set == "in_distribution")]
    assert overlap_correlations(ok)["rho"].min() > 0.99


def dpo_log(chosen_ratio, rejected_ratio, beta=0.1, raw_chosen=None, raw_rejected=None):
    """A DPO training log whose per-step log-ratios to the reference are the given arrays (TRL logs β times them)."""
    chosen_ratio, rejected_ratio = np.asarray(chosen_ratio, float), np.asarray(rejected_ratio, float)
    n = len(chosen_ratio)
    return pd.DataFrame({"step": range(1, n + 1), "loss": np.linspace(0.69, 0.3, n),
                         "logps/chosen": np.linspace(-50, -60, n) if raw_chosen is None else raw_chosen,
                         "logps/rejected": np.linspace(-50, -80, n) if raw_rejected is None else raw_rejected,
                         "rewards/chosen": beta * chosen_ratio, "rewards/rejected": beta * rejected_ratio,
                         "rewards/margins": beta * (chosen_ratio - rejected_ratio)})


def test_displacement_from_a_dpo_log():
    log = dpo_log(np.linspace(0, -3, 10), np.linspace(0, -8, 10), beta=0.1)
    traj = displacement(log, beta=0.1)
    assert list(traj.columns) == ["step", "loss", "logp_chosen", "logp_rejected", "margin", "logratio_chosen",
                                  "logratio_rejected"]
    assert traj["logratio_chosen"].iloc[-1] == pytest.approx(-3.0)  # nats: TRL's reward divided by beta
    s = displacement_summary(traj, window=2)
    assert s["displaced"] and s["logratio_chosen_end"] < 0 and s["margin_change"] > 0
    grown = dpo_log(np.linspace(0, 2, 10), np.linspace(0, -4, 10))
    assert not displacement_summary(displacement(grown, beta=0.1))["displaced"]  # chosen more likely than before
    with pytest.raises(ValueError):
        displacement(log.drop(columns=["rewards/chosen"]), beta=0.1)
    with pytest.raises(ValueError, match="beta"):
        displacement(log, beta=0)


def test_displacement_is_read_on_log_ratios_not_on_raw_batch_log_probs():
    """Each step's batch holds other pairs: the raw log-probs can fall only because later batches hold longer
    responses. Relative to the reference the chosen completion became *more* likely: no displacement (reading the
    raw log-probs, as before, said there was)."""
    longer_batches = np.linspace(-40, -70, 10)
    log = dpo_log(np.linspace(0, 1, 10), np.linspace(0, -2, 10), raw_chosen=longer_batches,
                  raw_rejected=longer_batches - 5)
    s = displacement_summary(displacement(log, beta=0.1))
    assert s["logp_chosen_change"] < 0 and s["margin_change"] > 0
    assert not s["displaced"] and s["logratio_chosen_end"] > 0


def test_heldout_logratios_have_cis_over_pairs():
    rng = np.random.default_rng(0)
    n = 120
    ref_c, ref_r = rng.normal(-60, 10, n), rng.normal(-65, 10, n)
    scored = pd.DataFrame({"rm": "IM-RM", "eval_set": "in_distribution", "ref_logp_chosen": ref_c,
                           "logp_chosen": ref_c - 1.5 + rng.normal(0, 1, n), "ref_logp_rejected": ref_r,
                           "logp_rejected": ref_r - 3 + rng.normal(0, 1, n)})
    other = scored.assign(rm="EX-RM", logp_chosen=0.0)  # another RM's rows are not mixed in
    h = heldout_logratios(pd.concat([scored, other]), "IM-RM", n_resamples=999).set_index("completion")
    assert h.loc["chosen", "ci_high"] < 0 and h.loc["rejected", "mean"] == pytest.approx(-3, abs=0.3)
    assert h.loc["chosen", "ci_low"] < -1.5 < h.loc["chosen", "ci_high"] and (h["n"] == n).all()
    with pytest.raises(ValueError, match="no scored pairs"):
        heldout_logratios(scored, "IM-RM", eval_set="token_shift")
