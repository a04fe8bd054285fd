"""rmlib.stats.effects: effect sizes, moments and tail asymmetry with bootstrap intervals that cover planted values."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib import stats
from rmlib import stats as st
from rmbook.report import charts


def test_effect_size_known_values():
    x, y = np.arange(1.0, 6), np.arange(3.0, 8)
    d = -2 / np.std(x, ddof=1)
    assert st.cohen_d(x, y) == pytest.approx(d)
    assert st.hedges_g(x, y) == pytest.approx(d * (1 - 3 / (4 * 10 - 9)), rel=1e-3)  # Hedges' approximation
    assert st.rank_biserial([5, 6, 7], [1, 2, 3]) == pytest.approx(1.0)
    assert st.rank_biserial([1, 2, 3], [1, 2, 3]) == pytest.approx(0.0)


def test_effect_size_ci_covers_planted_value():
    rng = np.random.default_rng(6)
    res = st.effect_size(rng.normal(0.5, 1, 300), rng.normal(0, 1, 300), "hedges_g")
    assert res["ci_low"] < 0.5 < res["ci_high"] and res["ci_low"] > 0
    rb = st.effect_size(rng.normal(size=200), rng.normal(size=200), "rank_biserial")
    assert rb["ci_low"] < 0 < rb["ci_high"]
    with pytest.raises(ValueError, match="NaN"):
        st.effect_size([1.0, np.nan, 2.0], [1.0, 2.0])


def test_moments_cis_cover_gamma_truth():
    rng = np.random.default_rng(7)
    k = 4.0  # gamma(k): mean k, variance k, skewness 2/sqrt(k), excess kurtosis 6/k
    table = st.moments(rng.gamma(k, size=20000), n_resamples=500).set_index("moment")
    for name, truth in {"mean": k, "variance": k, "skewness": 1.0, "kurtosis": 1.5}.items():
        assert table.loc[name, "ci_low"] <= truth <= table.loc[name, "ci_high"], name


def test_tail_asymmetry_and_comparison():
    rng = np.random.default_rng(8)
    sym = st.tail_asymmetry(rng.normal(size=5000), q=0.02)
    assert sym["ci_low"] < 1 < sym["ci_high"]
    assert st.tail_asymmetry(rng.exponential(size=5000), q=0.02)["ci_low"] > 1.5
    df = pd.DataFrame({"reward": rng.normal(size=1000)})
    df["length"] = 5 + 2 * (df["reward"] > 1.5) + rng.normal(scale=0.5, size=1000)
    df["is_word"] = df["reward"] < -1.5
    tc = st.tail_comparison(df, ["length", "is_word"], k=50).set_index("feature")
    assert tc.loc["length", "ci_low"] > 1.5 and tc.loc["length", "rank_biserial"] > 0.9
    assert tc.loc["is_word", "bottom_mean"] == 1.0 and tc.loc["is_word", "top_mean"] == 0.0
    tails = st.top_bottom(df, k=3)
    assert tails.loc[tails["tail"] == "top", "reward"].tolist() == sorted(df["reward"])[::-1][:3]
    with pytest.raises(ValueError, match="fewer than 2k"):
        st.top_bottom(df.head(5), k=3)


def test_ci_verdict_and_swarm_offsets():
    df = pd.DataFrame({"model": list("abc"), "x": [1.0, -1.0, 0.1], "x_ci_low": [0.5, -2, -0.5],
                       "x_ci_high": [2, -0.5, 0.7]})
    assert stats.ci_verdict(df, "x") == {"above": ["a"], "below": ["b"], "zero": ["c"]}
    pts = pd.DataFrame({"v": [1, 1, 1, 1, 2], "y": [0.0, 0.0, 0.0, 0.0, 0.0]})
    off = charts.swarm_offsets(pts, "v", "y", step=0.1)
    assert np.allclose(sorted(off[:4]), [-0.1, 0.0, 0.1, 0.2]) and off[4] == 0.0  # spread, no two points coincide


def test_t_interval_matches_scipy_and_is_nan_for_one_replicate():
    from scipy import stats as sps
    from rmlib.stats import t_interval
    x = np.array([1.0, 2.0, 4.0, 7.0])
    lo, hi = t_interval([x.mean(), 3.0], [x.std(ddof=1), np.nan], [len(x), 1])
    ref = sps.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=sps.sem(x))
    assert (lo[0], hi[0]) == pytest.approx(ref) and np.isnan(lo[1]) and np.isnan(hi[1])
    lo90, hi90 = t_interval(x.mean(), x.std(ddof=1), len(x), confidence=0.9)
    assert hi90 - lo90 < hi[0] - lo[0]
