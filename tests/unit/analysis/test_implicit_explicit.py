"""rmlib.analysis.implicit_explicit on planted scores: accuracy CIs, paired gaps, overlap reliance, displacement and
the verdict on the published pattern."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.analysis.implicit_explicit import (accuracy_table, displacement, displacement_summary,
                                              overlap_correlations, paired_gaps, pattern_verdict)


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
    assert v == {"token": "replicates", "domain": "replicates", "domain_worse_sets": [], "replicates": True}
    assert pattern_verdict(g.reset_index(), changed_share=0.0)["token"] == "not tested"


def test_no_token_reliance_is_not_called_a_replication():
    v = pattern_verdict(paired_gaps(planted(im_token_loss=0.0), "IM", "EX", n_resamples=500))
    assert v["token"] != "replicates" and not v["replicates"]
    worse = planted(im_token_loss=0.0)
    worse.loc[(worse.rm == "IM") & (worse.eval_set == "domain:x"), "correct"] = 0.0
    v = pattern_verdict(paired_gaps(worse, "IM", "EX", n_resamples=500))
    assert v["domain"] == "does not replicate" and v["domain_worse_sets"] == ["x"]
    with pytest.raises(ValueError, match="no scores"):
        paired_gaps(planted(), "IM", "DPO")


def test_overlap_correlations_find_a_planted_dependence():
    s = planted()
    c = overlap_correlations(s)
    assert set(c["feature"]) == {"chosen_rejected_overlap", "kept_words (margin change)"}
    # margins are sign * (0.5 + overlap): among correct pairs the margin rises with overlap
    ok = s[(s.correct == 1) & (s.eval_set == "in_distribution")]
    assert overlap_correlations(ok)["rho"].min() > 0.99


def test_displacement_from_a_dpo_log():
    log = pd.DataFrame({"step": range(1, 11), "loss": np.linspace(0.69, 0.3, 10),
                        "logps/chosen": np.linspace(-50, -60, 10), "logps/rejected": np.linspace(-50, -80, 10),
                        "rewards/margins": np.linspace(0, 2, 10)})
    traj = displacement(log)
    assert list(traj.columns) == ["step", "loss", "logp_chosen", "logp_rejected", "margin"]
    s = displacement_summary(traj, window=2)
    assert s["displaced"] and s["logp_chosen_change"] < 0 and s["margin_change"] > 0
    log["logps/chosen"] = np.linspace(-50, -40, 10)
    assert not displacement_summary(displacement(log))["displaced"]
    with pytest.raises(ValueError):
        displacement(log.drop(columns=["rewards/margins"]))
