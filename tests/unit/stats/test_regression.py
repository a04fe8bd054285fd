"""rmlib.stats.regression: per-cell slopes, slope differences, shares of positive slopes and shuffled baselines."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.stats import regression as reg


def exposure_data(slope, n_words=300, n_models=4, n_prompts=10, seed=0):
    """Word-level predictor x (like log frequency) and covariate val, shared by every model x prompt cell, plus a
    word effect common to all cells: the cells are dependent, as in real data."""
    rng = np.random.default_rng(seed)
    words = pd.DataFrame({"word": [f"w{i}" for i in range(n_words)], "x": rng.normal(size=n_words),
                          "val": rng.normal(size=n_words), "word_effect": rng.normal(size=n_words)})
    cells = pd.DataFrame({"model": np.repeat([f"m{i}" for i in range(n_models)], n_prompts),
                          "prompt": np.tile([f"p{i}" for i in range(n_prompts)], n_models)})
    cells["valence"] = np.where(cells["prompt"].str[1:].astype(int) < n_prompts // 2, "positive", "negative")
    df = words.merge(cells, how="cross")
    df["reward"] = slope * df["x"] + 0.5 * df["val"] + df["word_effect"] + rng.normal(size=len(df))
    return df


def test_planted_slope_recovered_with_ci():
    df = exposure_data(slope=0.3, seed=10)
    slopes = reg.cell_slopes(df, x="x", covariates=["val"])
    assert len(slopes) == 40 and (slopes["n"] == 300).all()
    covered = ((slopes["ci_low"] <= 0.3) & (0.3 <= slopes["ci_high"])).mean()
    assert covered >= 0.8  # each cell's CI covers the truth (cells share the word effect, so not exactly 95%)
    # Without the shared word effect, per-cell 95% CIs cover the truth at close to the nominal rate.
    df2 = df.assign(reward=0.3 * df["x"] + np.random.default_rng(11).normal(size=len(df)))
    cov2 = reg.cell_slopes(df2, x="x")
    assert ((cov2["ci_low"] <= 0.3) & (0.3 <= cov2["ci_high"])).mean() >= 0.85
    assert reg.share_positive(slopes)["share"] == 1.0


def test_planted_null_share_matches_noise_baseline():
    df = exposure_data(slope=0.0, seed=12)
    observed = reg.share_positive(reg.cell_slopes(df, x="x", covariates=["val"]))["share"]
    null = reg.shuffled_share_baseline(df, x="x", covariates=["val"], n_shuffles=200, seed=1)
    cmp = reg.compare_to_baseline(observed, null)
    assert cmp["null_low"] <= observed <= cmp["null_high"] and cmp["p_greater"] > 0.05
    assert 0.4 < cmp["null_mean"] < 0.6
    # A real (small) slope stands out of the same baseline.
    df1 = exposure_data(slope=0.25, seed=12)
    obs1 = reg.share_positive(reg.cell_slopes(df1, x="x", covariates=["val"]))["share"]
    assert reg.compare_to_baseline(obs1, null)["p_greater"] < 0.05


def test_shuffle_baseline_matches_statsmodels_slope_signs():
    # With the identity permutation the FWL slopes equal cell_slopes; check via a one-item-per-row shuffle seed.
    df = exposure_data(slope=0.1, n_words=60, n_models=2, n_prompts=3, seed=13)
    null = reg.shuffled_share_baseline(df, x="x", covariates=["val"], item=None, n_shuffles=50, seed=0)
    assert null.shape == (50,) and ((null >= 0) & (null <= 1)).all()
    assert np.allclose(null * 6, np.round(null * 6))  # shares are multiples of 1/n_cells
    with pytest.raises(ValueError, match="item attribute"):
        reg.shuffled_share_baseline(df.assign(x=np.arange(len(df), dtype=float)), x="x")


def test_slope_difference_between_prompt_valences():
    rng = np.random.default_rng(14)
    df = exposure_data(slope=0.0, seed=14)
    df["reward"] = np.where(df["valence"] == "positive", 0.5, 0.1) * df["x"] + rng.normal(size=len(df))
    res = reg.slope_difference(df, x="x", condition="valence", levels=("negative", "positive"),
                               covariates=["prompt"], cluster="word")
    assert len(res) == 4
    assert ((res["difference_ci_low"] <= 0.4) & (0.4 <= res["difference_ci_high"])).all()
    assert ((res["slope_a_ci_low"] <= 0.1) & (0.1 <= res["slope_a_ci_high"])).mean() >= 0.75
    assert (res["p"] < 1e-3).all()


def test_share_positive_wilson_and_errors():
    res = reg.share_positive([1.0] * 8 + [-1.0] * 2)
    assert res["share"] == 0.8
    assert res["ci_low"] == pytest.approx(0.4902, abs=1e-3) and res["ci_high"] == pytest.approx(0.9433, abs=1e-3)
    df = exposure_data(slope=0.1, n_words=30, n_models=1, n_prompts=2)
    with pytest.raises(ValueError, match="NaN"):
        reg.cell_slopes(df.assign(x=df["x"].where(df.index > 0)), x="x")
    with pytest.raises(ValueError, match="lacks columns"):
        reg.cell_slopes(df, x="log_freq")
    with pytest.raises(ValueError, match="min_n"):
        reg.cell_slopes(df.head(15), x="x", min_n=10, groups=["model", "prompt", "word"])


def test_a_share_s_interval_is_wilson_and_stays_in_zero_one():
    from statsmodels.stats.proportion import proportion_confint

    assert reg.proportion_ci(3, 10) == proportion_confint(3, 10, alpha=0.05, method="wilson")
    lo, hi = reg.proportion_ci(10, 10)
    assert hi == pytest.approx(1.0) and 0.6 < lo < 1  # the normal interval would be [1, 1]


def test_cell_slopes_with_numeric_covariates_fit_the_formulas_design_without_parsing_it(monkeypatch):
    """The mere-exposure chapter fits 5,430 cells; parsing ``y ~ x + covariates`` with patsy for each took nine
    tenths of its time (#61). With numeric covariates the cell's design is stacked from the columns instead, and the
    result must be the formula fit's, number for number (an integer column and a name patsy must quote included)."""
    import statsmodels.formula.api as smf

    df = exposure_data(slope=0.2, n_words=80, n_models=2, n_prompts=3, seed=14)
    df = df.assign(**{"log freq": df["x"] * 1.5, "count": np.arange(len(df)) % 7})
    for x, covariates in (("x", ["val"]), ("log freq", ["val", "count"]), ("x", [])):
        expected = []
        for (model, prompt), g in df.groupby(["model", "prompt"], sort=True):
            rhs = "".join(f" + {reg.formula_name(c)}" for c in covariates)
            res = smf.ols(f"reward ~ {reg.formula_name(x)}{rhs}", g).fit(cov_type="HC3")
            term = reg.formula_name(x)
            lo, hi = res.conf_int(0.05).loc[term]
            expected.append({"model": model, "prompt": prompt, "slope": res.params[term], "se": res.bse[term],
                             "ci_low": lo, "ci_high": hi, "p": res.pvalues[term], "n": int(res.nobs)})
        with monkeypatch.context() as patched:
            patched.setattr(reg.smf, "ols", lambda *a, **k: pytest.fail("a numeric design was parsed by patsy"))
            got = reg.cell_slopes(df, x=x, covariates=covariates)
        pd.testing.assert_frame_equal(got, pd.DataFrame(expected), check_exact=True)
    # a categorical covariate is dummy-coded by patsy, cell by cell, as before
    cat = reg.cell_slopes(df.assign(kind=np.where(df["val"] > 0, "a", "b")), x="x", covariates=["kind"])
    assert len(cat) == 6 and cat["slope"].notna().all()
