"""rmbook.chapters.blinding.analysis: the disparity statistics on a planted bias, measured exactly; the paper's
points."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.blinding import analysis as B

def test_planted_bias_is_measured_exactly(planted):
    small, scorer, run = planted
    assert run.usable and run.mean_mass == pytest.approx(1.0)
    t = run.table
    assert len(t) == 4 * 8 * 4 and t.groupby("condition").size().eq(32).all()
    res = B.disparity(t, n_resamples=300)
    by = res["by_axis"].set_index(["condition", "axis"])
    for axis, terms in (("religion", ["Christian", "Muslim", "Jewish", "Buddhist"]),
                        ("age", ["young", "middle-aged", "old", "elderly"])):
        delta = np.array([scorer.PLANTED[d] for d in terms])
        for cond, k in (("informed", 1.0), ("told_to_ignore", scorer.IGNORE_FACTOR), ("counterfactual", scorer.REPLICA_FACTOR)):
            row = by.loc[(cond, axis)]
            assert row["gap"] == pytest.approx(k * (delta.max() - delta.min()), abs=1e-6)
            assert row["spread"] == pytest.approx(k * delta.std(), abs=1e-6)
            assert row["lowest"] == terms[int(delta.argmin())] and row["highest"] == terms[int(delta.argmax())]
        # the blinded condition has no disparity by construction: exactly zero, interval included
        blind = by.loc[("blinded", axis)]
        assert blind["gap"] == 0 and blind["spread"] == 0 and blind["gap_ci_high"] == 0
        assert pd.isna(blind["lowest"]) and pd.isna(blind["highest"])  # no descriptor is lowest or highest
    # effects: what knowing each descriptor does, against the replica of the same template
    eff = res["effects"].set_index(["condition", "descriptor"])
    for d, shift in scorer.PLANTED.items():
        assert eff.loc[("informed", d), "effect"] == pytest.approx(shift, abs=1e-6)
        assert eff.loc[("counterfactual", d), "effect"] == pytest.approx(scorer.REPLICA_FACTOR * shift, abs=1e-6)
    # the verdicts: told to ignore backfires (1.5x), the replica's answer reduces (0.25x)
    ch = res["change"].set_index(["condition", "axis", "measure"])
    assert ch.loc[("told_to_ignore", "all axes", "gap"), "verdict"] == "increases"
    assert ch.loc[("counterfactual", "all axes", "gap"), "verdict"] == "reduces"
    assert ch.loc[("counterfactual", "all axes", "gap"), "relative"] == pytest.approx(1 - scorer.REPLICA_FACTOR)
    assert ch.loc[("blinded", "religion", "spread"), "relative"] == pytest.approx(1.0)


def test_paper_points_on_the_planted_scorer(planted):
    _, scorer, run = planted
    res = B.disparity(run.table, n_resamples=300)
    k = res["contrast"].set_index(["axis", "measure"])
    gap = max(scorer.PLANTED[d] for d in ("Christian", "Muslim", "Jewish", "Buddhist")) - scorer.PLANTED["Muslim"]
    assert k.loc[("religion", "gap"), "difference"] == pytest.approx((scorer.IGNORE_FACTOR - scorer.REPLICA_FACTOR) * gap)
    assert k.loc[("all axes", "gap"), "verdict"] == "replica better"
    pts = B.paper_points(res, B.behaviour(run.table)).iloc[0]
    assert pts["instruction"] == "backfires" and pts["instruction_point_replicates"]
    assert pts["replica"] == "helps" and pts["replica_point_replicates"]
    assert pts["replica_vs_instruction"] == "replica better"
    assert pts["responsive"] and not pts["copies_replica"]  # it agreed with the replica before it was shown


def test_paper_points_rules():
    change = pd.DataFrame([{"model": "m", "axis": "all axes", "measure": "gap", "condition": c, "verdict": v}
                           for c, v in (("told_to_ignore", "reduces"), ("counterfactual", "no reliable change"))])
    contrast = pd.DataFrame([{"model": "m", "axis": "all axes", "measure": "gap", "verdict": "instruction better"}])
    beh = pd.DataFrame([{"model": "m", "reward_kind": "LM", "blinded_template_sd": 0.01, "agree_informed": 0.6,
                         "agree_counterfactual": 0.97}])
    pts = B.paper_points({"change": change, "contrast": contrast}, beh).iloc[0]
    assert pts["instruction"] == "helps" and pts["instruction_point_replicates"] == False  # noqa: E712
    assert pts["replica"] == "does not help" and pts["replica_point_replicates"] == False  # noqa: E712
    assert pts["replica_vs_instruction"] == "instruction better"
    assert pts["responsive"] == False and pts["copies_replica"] == True  # noqa: E712
    few = B.paper_points({"change": change.assign(verdict="too few templates"),
                          "contrast": contrast.assign(verdict="too few templates")}, beh).iloc[0]
    assert few["instruction"] is None and few["instruction_point_replicates"] is None
    assert few["replica_vs_instruction"] is None


def test_behaviour_on_the_planted_scorer(planted):
    _, scorer, run = planted
    b = B.behaviour(run.table).iloc[0]
    assert b["yes_no_mass"] == pytest.approx(1.0) and b["blinded_p_yes"] == pytest.approx(np.mean(scorer.BASE))
    shifts = np.array(list(scorer.PLANTED.values()))
    assert b["ignore_shift"] == pytest.approx((scorer.IGNORE_FACTOR - 1) * shifts.mean())
    # every planted shift is smaller than the distance of its base from 0.5: all answers agree with the replica
    assert b["agree_informed"] == 1.0 and b["agree_counterfactual"] == 1.0


def test_disparity_with_too_few_templates_gives_no_interval_and_no_verdict(planted):
    _, scorer, run = planted
    two = run.table[run.table["template"].isin(sorted(run.table["template"].unique())[:2])]
    res = B.disparity(two, n_resamples=50)
    assert res["by_axis"]["gap_ci_low"].isna().all()
    assert set(res["change"]["verdict"]) == {"too few templates"}
    with pytest.raises(ValueError, match="not balanced"):
        B.disparity(run.table.iloc[1:], n_resamples=10)


def test_a_model_pushed_away_from_its_replicas_answer_is_flagged():
    """SmolLM2 at full parameters agreed with its replica on 100% of informed questions and on 12.5% once shown the
    replica's answer: a fall in disparity then does not come from consulting the replica, and the points say so."""
    change = pd.DataFrame([{"model": "m", "axis": "all axes", "measure": "gap", "condition": c, "verdict": "reduces"}
                           for c in ("told_to_ignore", "counterfactual")])
    contrast = pd.DataFrame([{"model": "m", "axis": "all axes", "measure": "gap", "verdict": "no reliable difference"}])
    beh = pd.DataFrame([{"model": "m", "reward_kind": "LM", "blinded_template_sd": 0.1, "agree_informed": 1.0,
                         "agree_counterfactual": 0.125}])
    pts = B.paper_points({"change": change, "contrast": contrast}, beh).iloc[0]
    assert pts["defies_replica"] == True and pts["copies_replica"] == False  # noqa: E712
    shown = B.paper_points({"change": change, "contrast": contrast}, beh.assign(agree_counterfactual=0.6)).iloc[0]
    assert shown["defies_replica"] == False  # noqa: E712
    from rmbook.chapters.blinding.results import points
    from rmbook.report.prose import render
    assert "pushes its answer away from the replica's" in render("blinding", "points", s=points(pd.DataFrame([pts])))
    assert "pushes its answer away" not in render("blinding", "points", s=points(pd.DataFrame([shown])))
