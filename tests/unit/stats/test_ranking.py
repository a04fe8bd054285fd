"""rmlib.stats.ranking: standardised rewards within groups; Kendall's W."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from rmlib import stats


def test_standardise():
    df = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "prompt_key": "p", "reward": [1, 2, 3, 4, 10, 20, 30, 40.0]})
    z = stats.standardise(df, method="z")
    assert np.allclose(z[:4], z[4:]) and abs(z[:4].mean()) < 1e-12
    r = stats.standardise(df, method="rank")
    assert r.tolist() == [25, 50, 75, 100] * 2
    with pytest.raises(ValueError, match="constant"):
        stats.standardise(df.assign(reward=1.0))


def test_kendall_w_matches_friedman_and_its_extremes():
    rng = np.random.default_rng(0)
    ranks = np.array([sps.rankdata(rng.normal(size=5)) for _ in range(7)])
    # W = chi2_Friedman / (m (n - 1)), scipy's Friedman test has the same tie correction
    chi2 = sps.friedmanchisquare(*ranks.T).statistic
    assert stats.kendall_w(ranks) == pytest.approx(chi2 / (7 * 4))
    same = np.tile([1, 2, 3], (4, 1))
    assert stats.kendall_w(same) == pytest.approx(1.0)
    opposite = np.array([[1, 2], [2, 1]])
    assert stats.kendall_w(opposite) == pytest.approx(0.0)
    assert np.isnan(stats.kendall_w(np.array([[1, 2, 3]])))  # one rater: no agreement to measure
    with pytest.raises(ValueError, match="NaN"):
        stats.kendall_w(np.array([[1, np.nan], [1, 2]]))
