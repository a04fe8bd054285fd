"""rmlib.stats.correlation: Spearman's rho with the Bonett-Wright interval."""
from __future__ import annotations

from scipy import stats as sps
import numpy as np
import pytest

from rmlib import stats as st


def test_spearman_interval_is_bonett_wright_and_covers():
    from scipy import stats as sps

    rng = np.random.default_rng(3)
    x = rng.normal(size=40)
    y = x + rng.normal(size=40)
    res = st.spearman_ci(x, y)
    r, n = res["rho"], 40
    assert r == pytest.approx(sps.spearmanr(x, y).statistic) and res["method"] == "Bonett-Wright"
    half = 1.959964 * np.sqrt((1 + r ** 2 / 2) / (n - 3))
    assert res["ci_low"] == pytest.approx(np.tanh(np.arctanh(r) - half))
    # coverage of a strong monotone association: Fisher's Pearson interval under-covers Spearman's rho
    true_rho = 6 / np.pi * np.arcsin(0.8 / 2)  # Spearman's rho of a bivariate normal with r = 0.8
    cov = np.array([[1, 0.8], [0.8, 1]])
    hits_bw = hits_fisher = 0
    for k in range(400):
        d = rng.multivariate_normal([0, 0], cov, size=25)
        out = st.spearman_ci(d[:, 0], d[:, 1])
        hits_bw += out["ci_low"] <= true_rho <= out["ci_high"]
        z, h = np.arctanh(out["rho"]), 1.959964 / np.sqrt(22)
        hits_fisher += np.tanh(z - h) <= true_rho <= np.tanh(z + h)
    assert hits_bw / 400 > 0.92 and hits_bw > hits_fisher
    with pytest.raises(ValueError, match="same length"):
        st.spearman_ci(x, y[:-1])
