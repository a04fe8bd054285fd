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


@pytest.mark.parametrize("n", [300, 5000])  # BCa, then the percentile interval
def test_moments_draw_their_resamples_once_and_give_the_per_moment_bootstraps_intervals(n, monkeypatch):
    """#61: the four moments were four bootstraps of the same resamples (the same seed); one pass gives the same
    numbers, to the bit."""
    from scipy import stats

    from rmlib.stats import effects

    a = np.random.default_rng(1).standard_gamma(2.0, n)
    method = "BCa" if n <= 2000 else "percentile"
    want = {name: stats.bootstrap((a,), fn, n_resamples=199, method=method, vectorized=True,
                                  batch=max(1, int(2e7 // n)), rng=np.random.default_rng(0)).confidence_interval
            for name, fn in effects._MOMENTS.items()}
    calls = []
    real = stats.bootstrap
    monkeypatch.setattr(effects.stats, "bootstrap", lambda *a, **k: calls.append(1) or real(*a, **k))
    got = st.moments(a, n_resamples=199).set_index("moment")
    assert len(calls) == 1
    for name, ci in want.items():
        assert (got.loc[name, "ci_low"], got.loc[name, "ci_high"]) == (float(ci.low), float(ci.high)), name
