"""rmbook.chapters.good_teachers.stats: does accuracy or variance predict teaching speed, across reward models?"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.good_teachers import stats as tstats


# --------------------------------------------------------------------------- the test of the claim

def _table():
    rows = []
    for st in ("uniform", "top"):
        for k, m in enumerate("abcdef"):
            rows.append({"pi0": st, "model": m, "accuracy_uniform": 0.6 + 0.01 * k,
                         "variance_pi0": 1.0 if st == "uniform" else 1.0 + (5 - k) + 0.0,
                         "gain_T": float(5 - k) if st == "top" else float(k)})
    return pd.DataFrame(rows)


def test_rank_correlations_within_pi0_pooled_and_undefined_for_constant_variance():
    table = _table()
    # float noise of a standardised reward must not pass for a correlation under uniform
    table.loc[table["pi0"] == "uniform", "variance_pi0"] += np.arange(6) * 1e-16
    cor = tstats.rank_correlations(table, ["accuracy_uniform", "variance_pi0"], ["gain_T"], n_resamples=300).set_index(
        ["predictor", "stratum"])
    assert cor.loc[("accuracy_uniform", "uniform"), "rho"] == pytest.approx(1.0)
    assert cor.loc[("accuracy_uniform", "top"), "rho"] == pytest.approx(-1.0)
    assert cor.loc[("accuracy_uniform", "pooled"), "rho"] == pytest.approx(0.0)
    assert cor.loc[("accuracy_uniform", "top"), "verdict"] == "predicts the opposite"
    assert not cor.loc[("variance_pi0", "uniform"), "defined"] and np.isnan(cor.loc[("variance_pi0", "uniform"), "rho"])
    top = cor.loc[("variance_pi0", "top")]
    assert top["rho"] == pytest.approx(1.0) and top["ci_low"] <= 1.0 and top["verdict"] == "predicts"
    assert cor.loc[("variance_pi0", "pooled"), "n_strata"] == 1


def test_bootstrap_interval_is_over_rms_and_covers_the_estimate():
    rng = np.random.default_rng(3)
    rows = [{"pi0": "p", "model": f"m{i}", "x": v, "y": v + rng.normal(scale=1.0)}
            for i, v in enumerate(rng.normal(size=10))]
    cor = tstats.rank_correlations(pd.DataFrame(rows), ["x"], ["y"], n_resamples=500).iloc[0]
    assert cor["ci_low"] <= cor["rho"] <= cor["ci_high"] and cor["n_units"] == 10


def test_slower_but_more_accurate_lists_exactly_the_discordant_pairs():
    table = _table()
    pairs = tstats.slower_but_more_accurate(table)
    assert set(pairs["pi0"]) == {"top"} and len(pairs) == 15        # under 'top' speed falls as accuracy rises
    assert pairs["lower_variance"].all()
    assert (pairs["accuracy_more"] > pairs["accuracy_less"]).all()
    assert (pairs["speed_more_accurate"] < pairs["speed_less_accurate"]).all()


def test_equal_variances_under_a_uniform_pi0_count_no_lower_variance_pair():
    table = _table()
    uni = table["pi0"] == "uniform"
    # every RM is slower the more accurate it is under uniform, and every variance is 1 up to rounding
    table.loc[uni, "gain_T"] = 5.0 - np.arange(6)
    table.loc[uni, "variance_pi0"] = 1.0 + np.array([3, -2, 1, 0, -1, 2]) * 1e-16
    assert (table.loc[uni, "variance_pi0"].diff().dropna() != 0).any()     # a plain '<' would see differences
    pairs = tstats.slower_but_more_accurate(table)
    under_uniform = pairs[pairs["pi0"] == "uniform"]
    assert len(under_uniform) == 15 and not under_uniform["lower_variance"].any()
    counts = tstats.slower_counts(table, pairs)
    assert counts.loc["uniform", "... with lower variance"] == 0 and counts.loc["top", "... with lower variance"] == 15
    explains = {r["pi0"]: r for r in tstats.variance_explains(pairs, ["uniform", "top"])}
    assert (explains["uniform"]["n_lower_variance"], explains["uniform"]["share"]) == (0, 0.0)
    assert explains["top"]["share"] == 1.0
    assert not tstats.clearly_lower(1.0, 1.0 + 1e-15) and tstats.clearly_lower(0.99, 1.0)


def test_an_inversion_within_the_accuracy_margin_does_not_count():
    rows = [{"pi0": "p", "model": m, "accuracy_uniform": acc, "variance_pi0": 1.0, "gain_T": g}
            for m, acc, g in (("a", 0.652, 0.1), ("b", 0.650, 0.2), ("c", 0.60, 0.3))]
    pairs = tstats.slower_but_more_accurate(pd.DataFrame(rows))
    assert len(pairs) == 3 and pairs["accuracy_gap"].min() == pytest.approx(0.002)
    cor = pd.DataFrame(columns=["outcome", "defined", "stratum", "predictor", "verdict"])
    rep = tstats.replication(cor, pairs)
    assert rep["n_slower_more_accurate"] == 3 and rep["n_slower_more_accurate_margin"] == 2
    assert rep["accuracy_margin"] == tstats.ACCURACY_MARGIN == 0.01
    only_close = tstats.replication(cor, pairs[pairs["accuracy_gap"] < 0.01])
    assert only_close["n_slower_more_accurate"] == 1 and only_close["n_slower_more_accurate_margin"] == 0


def test_replication_tells_a_reversed_variance_from_an_unclear_one():
    cor = pd.DataFrame([{"predictor": "variance_pi0", "outcome": "gain_T", "stratum": s, "defined": True,
                         "verdict": v} for s, v in (("random", "predicts the opposite"), ("top", "predicts"),
                                                    ("other", "does not predict"))])
    rep = tstats.replication(cor, tstats.slower_but_more_accurate(_table()))
    assert rep["variance_predicts_under"] == ["top"] and rep["variance_reversed_under"] == ["random"]
    assert rep["variance_not_established_under"] == ["other"]
    assert rep["variance_does_not_predict_under"] == ["random", "other"]
    assert rep["n_slower_lower_variance"] == 15


def test_bad_tables_are_refused_with_a_reason():
    table = _table()
    with pytest.raises(ValueError, match="repeated"):
        tstats.rank_correlations(pd.concat([table, table.head(1)]), ["accuracy_uniform"], ["gain_T"])
    with pytest.raises(ValueError, match="at least 3"):
        tstats.rank_correlations(table[table["model"].isin(["a", "b"])], ["accuracy_uniform"], ["gain_T"])
