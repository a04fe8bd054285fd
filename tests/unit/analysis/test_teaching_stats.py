"""rmlib.analysis.teaching_stats: does accuracy or variance predict teaching speed, across reward models?"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.analysis import teaching_stats as tstats


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


def test_bad_tables_are_refused_with_a_reason():
    table = _table()
    with pytest.raises(ValueError, match="repeated"):
        tstats.rank_correlations(pd.concat([table, table.head(1)]), ["accuracy_uniform"], ["gain_T"])
    with pytest.raises(ValueError, match="at least 3"):
        tstats.rank_correlations(table[table["model"].isin(["a", "b"])], ["accuracy_uniform"], ["gain_T"])
