"""Statistics on synthetic data with a planted answer (rmlib.stats, rmlib.group_tests, rmlib.regression)."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from rmlib import stats as st
from rmlib.analysis import misalignment
from rmlib.stats import group_tests as gt
from rmlib.stats import regression as reg


# --- synthetic Big-Two-like design -----------------------------------------------------------------------------------

def big_two(n_per_family=5, n_words=60, n_prompts=8, effect=0.0, seed=0):
    """Long table model x prompt x word. ``effect`` raises communion words' scores in gemma models only,
    with the sign following prompt valence (a positive prompt rewards good words, a negative one bad words)."""
    rng = np.random.default_rng(seed)
    words = pd.DataFrame({"word": [f"w{i}" for i in range(n_words)],
                          "category": ["agency"] * (n_words // 2) + ["communion"] * (n_words - n_words // 2),
                          "goodness": rng.normal(size=n_words)})
    prompts = pd.DataFrame({"prompt": [f"p{i}" for i in range(n_prompts)],
                            "valence": ["positive"] * (n_prompts // 2) + ["negative"] * (n_prompts - n_prompts // 2)})
    models = pd.DataFrame({"model": [f"m{i}" for i in range(2 * n_per_family)],
                           "family": ["gemma"] * n_per_family + ["llama"] * n_per_family})
    df = words.merge(prompts, how="cross").merge(models, how="cross")
    planted = effect * ((df["family"] == "gemma") & (df["category"] == "communion"))
    sign = np.where(df["valence"] == "positive", 1.0, -1.0)
    df["reward"] = sign * (df["goodness"] + planted) + rng.normal(size=len(df))
    return df.drop(columns="goodness"), models


# --- median ranks -----------------------------------------------------------------------------------------------------

def test_within_prompt_ranks_and_median_ranks():
    df = pd.DataFrame({"model": "m", "prompt": "p", "word": list("abcd"), "reward": [0.1, 0.9, 0.5, 0.5],
                       "category": ["x", "x", "y", "y"], "valence": "positive"})
    ranks = gt.within_prompt_ranks(df).set_index("word")["rank"]
    assert ranks.to_dict() == {"b": 1.0, "c": 2.5, "d": 2.5, "a": 4.0}  # higher score -> rank 1, ties averaged
    med = gt.median_ranks(df).set_index("category")["median_rank"]
    assert med.to_dict() == {"x": 2.5, "y": 2.5}


def test_median_ranks_bad_input():
    df, _ = big_two(n_per_family=2, n_words=10, n_prompts=2)
    with pytest.raises(ValueError, match=r"lacks columns \['category'\]"):
        gt.median_ranks(df.drop(columns="category"))
    with pytest.raises(ValueError, match="NaN"):
        gt.median_ranks(df.assign(reward=df["reward"].where(df.index > 3)))
    with pytest.raises(ValueError, match="duplicate"):
        gt.median_ranks(pd.concat([df, df.head(1)]))


# --- group comparisons ------------------------------------------------------------------------------------------------

def test_planted_family_effect_is_detected():
    df, models = big_two(effect=1.5, seed=1)
    med = gt.median_ranks(df).merge(models, on="model")
    res = gt.permutation_tests(med, levels=("gemma", "llama")).set_index(["category", "valence"])
    cell = res.loc[("communion", "positive")]
    assert cell["difference"] < 0  # gemma ranks communion words nearer the top under positive prompts
    assert cell["p_fdr"] < 0.05 and cell["reject"]
    assert res.loc[("communion", "negative"), "difference"] > 0  # and nearer the bottom under negative prompts
    assert (res["n_a"] == 5).all() and (res["n_b"] == 5).all()  # the unit of replication is the model
    # The same design without the planted effect: nothing survives FDR.
    df0, _ = big_two(effect=0.0, seed=1)
    null = gt.permutation_tests(gt.median_ranks(df0).merge(models, on="model"), levels=("gemma", "llama"))
    assert not null["reject"].any()


def test_null_permutation_test_keeps_nominal_rate():
    rng = np.random.default_rng(123)
    n_seeds, hits = 200, 0
    for seed in range(n_seeds):
        d = pd.DataFrame({"model": [f"m{i}" for i in range(16)], "family": ["a"] * 8 + ["b"] * 8,
                          "panel": "only", "median_rank": rng.normal(size=16)})
        res = gt.permutation_tests(d, panels=["panel"], n_resamples=999, seed=seed)
        hits += bool(res["p"].iloc[0] < 0.05)
    lo, hi = sps.binom.interval(0.999, n_seeds, 0.05)
    assert lo <= hits <= hi, f"{hits}/{n_seeds} false positives at alpha=.05"


def test_permutation_tests_bad_input():
    df, models = big_two(n_per_family=2, n_words=10, n_prompts=2)
    med = gt.median_ranks(df).merge(models, on="model")
    one_llama = med[med["model"] != "m3"]
    with pytest.raises(ValueError, match="at least 2 per group"):
        gt.permutation_tests(one_llama)
    with pytest.raises(ValueError, match="exactly two"):
        gt.permutation_tests(med.assign(family=med["model"]))
    with pytest.raises(ValueError, match="lacks columns"):
        gt.permutation_tests(med.drop(columns="family"))


def test_anova_degrees_of_freedom_match_design():
    n_models, n_prompts = 6, 8
    df, _ = big_two(n_per_family=n_models // 2, n_words=40, n_prompts=n_prompts, effect=1.5, seed=2)
    med = gt.median_ranks(df)  # rows: model x prompt x category
    table = gt.anova_type2(med, factors=("category", "valence", "model")).set_index("term")
    m = n_models - 1
    expected = {"category": 1, "valence": 1, "model": m, "category:valence": 1, "category:model": m,
                "valence:model": m, "category:valence:model": m}
    assert table["df"].drop("Residual").to_dict() == expected
    n_cells = 2 * 2 * n_models
    assert table.loc["Residual", "df"] == len(med) - n_cells == n_models * n_prompts * 2 - n_cells
    # The planted gemma x communion effect flips with valence: a category x valence x model interaction.
    assert table.loc["category:valence:model", "p"] < 1e-3
    assert 0 < table.loc["category:valence:model", "partial_eta_sq"] < 1


def test_anova_rejects_design_without_replicates():
    df, _ = big_two(n_per_family=2, n_words=10, n_prompts=2)
    pooled = gt.median_ranks(df, per_prompt=False)
    with pytest.raises(ValueError, match="residual df"):
        gt.anova_type2(pooled)


def test_mixed_model_recovers_planted_coefficients():
    rng = np.random.default_rng(4)
    rows = []
    truth = {"Intercept": 10.0, "family[T.llama]": 2.0, "category[T.communion]": -1.0,
             "family[T.llama]:category[T.communion]": 3.0}
    for i in range(12):
        fam = "gemma" if i < 6 else "llama"
        u = rng.normal(scale=1.0)  # the model's random intercept
        for cat in ("agency", "communion"):
            for val in ("negative", "positive"):
                mu = (truth["Intercept"] + truth["family[T.llama]"] * (fam == "llama")
                      + truth["category[T.communion]"] * (cat == "communion")
                      + truth["family[T.llama]:category[T.communion]"] * (fam == "llama") * (cat == "communion"))
                for _ in range(40):
                    rows.append({"model": f"m{i}", "family": fam, "category": cat, "valence": val,
                                 "value": mu + u + rng.normal()})
    table = gt.mixed_model(pd.DataFrame(rows), value="value").set_index("term")
    for term, value in truth.items():
        assert table.loc[term, "ci_low"] <= value <= table.loc[term, "ci_high"], term
    assert table.loc["family[T.llama]:category[T.communion]", "p"] < 1e-3
    assert table.attrs["n_groups"] == 12 and 0.2 < table.attrs["group_var"] < 3


def test_mixed_model_needs_models_per_family():
    df, _ = big_two(n_per_family=2, n_words=10, n_prompts=2)
    few = df[df["model"].isin(["m0", "m1", "m2"])]  # one llama model
    with pytest.raises(ValueError, match="single model"):
        gt.mixed_model(gt.within_prompt_ranks(few))


def test_posthoc_welch_with_fdr():
    rng = np.random.default_rng(5)
    d = pd.DataFrame({"model": [f"m{i}" for i in range(24)], "family": np.repeat(["a", "b", "c"], 8),
                      "panel": "all"})
    d["median_rank"] = rng.normal(size=24) + np.where(d["family"] == "c", 3.0, 0.0)
    d.loc[d["family"] == "b", "median_rank"] *= 3  # unequal variances: Welch df < pooled df
    res = gt.posthoc_welch(d, panels=["panel"]).set_index(["level_a", "level_b"])
    assert len(res) == 3
    assert res.loc[("a", "c"), "reject"] and res.loc[("a", "c"), "ci_high"] < 0
    assert res.loc[("a", "b"), "df"] < 14
    assert (res["p_adj"] >= res["p"]).all()


# --- effect sizes -----------------------------------------------------------------------------------------------------

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


# --- misalignment -----------------------------------------------------------------------------------------------------

def test_misalignment_finds_planted_items():
    rng = np.random.default_rng(9)
    n = 200
    human = rng.normal(size=n)
    df = pd.DataFrame({"item": [f"i{j}" for j in range(n)], "human": human, "category": "c",
                       "same": human * 3 + 1,  # a monotone rescaling: perfectly aligned
                       "rm": human + 0.05 * rng.normal(size=n)})
    lo, hi = int(np.argmin(human)), int(np.argmax(human))
    df.loc[lo, "rm"], df.loc[hi, "rm"] = human.max() + 1, human.min() - 1  # swap the extremes
    mis = misalignment.misalignment(df, "human", ["same", "rm"])
    same = mis[mis["model"] == "same"]
    assert np.allclose(same["rank_diff"], 0) and np.allclose(same["z_diff"], 0, atol=1e-12)
    for method in ("rank", "z"):
        top = misalignment.most_misaligned(mis[mis["model"] == "rm"], n=1, method=method).set_index("direction")
        assert top.loc["over", "item"] == f"i{lo}" and top.loc["under", "item"] == f"i{hi}"
    assert mis.loc[(mis["model"] == "rm") & (mis["item"] == f"i{lo}"), "rank_diff"].item() == n - 1
    summary = misalignment.misalignment_by(mis, "category")
    assert set(summary.columns) >= {"rank_diff_mean", "rank_diff_ci_low", "z_diff_ci_high", "n"}
    with pytest.raises(ValueError, match="NaN"):
        misalignment.misalignment(df.assign(rm=df["rm"].where(df.index > 0)), "human", ["rm"])
    with pytest.raises(ValueError, match="lacks columns"):
        misalignment.misalignment(df, "human", ["nope"])


# --- regressions --------------------------------------------------------------------------------------------------

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


def test_flat_identical_panels_get_p_one_not_zero():
    d = pd.DataFrame({"model": list("abcd"), "family": ["g", "g", "l", "l"], "panel": "x", "median_rank": 5.0})
    flat = gt.permutation_tests(d, panels=["panel"], n_resamples=99)
    assert flat.loc[0, "p"] == 1.0 and not flat.loc[0, "reject"]


# --- intervals that respect the unit --------------------------------------------------------------------------------

def _clustered_mis(n_items=60, n_prompts=3, seed=0):
    """Each item appears under every prompt with nearly the same rank difference: the prompts add no information."""
    rng = np.random.default_rng(seed)
    item_effect = rng.normal(0, 100, n_items)
    rows = [{"item": f"i{i}", "prompt_key": f"p{p}", "model": "m", "category": "c",
             "rank_diff": item_effect[i] + rng.normal(0, 1), "z_diff": item_effect[i] / 100 + rng.normal(0, 0.01)}
            for i in range(n_items) for p in range(n_prompts)]
    return pd.DataFrame(rows)


def test_cluster_bootstrap_is_wider_than_the_row_bootstrap_on_clustered_data():
    mis = _clustered_mis()
    by_item = misalignment.misalignment_by(mis, "category", n_resamples=2000).iloc[0]
    by_row = misalignment.misalignment_by(mis, "category", cluster=None, n_resamples=2000).iloc[0]
    width = lambda r: r["rank_diff_ci_high"] - r["rank_diff_ci_low"]
    assert by_item["n"] == 180 and by_item["n_clusters"] == 60
    # resampling rows treats 3 copies as 3 observations: its interval is ~sqrt(3) too narrow
    assert width(by_item) / width(by_row) == pytest.approx(np.sqrt(3), rel=0.25)
    assert by_item["rank_diff_ci_low"] < by_item["rank_diff_mean"] < by_item["rank_diff_ci_high"]
    # with one row per item the two agree
    one = mis[mis["prompt_key"] == "p0"]
    a = misalignment.misalignment_by(one, "category", n_resamples=2000).iloc[0]
    b = misalignment.misalignment_by(one, "category", cluster=None, n_resamples=2000).iloc[0]
    assert width(a) == pytest.approx(width(b), rel=0.15)


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


def test_consensus_median_resists_one_extreme_model():
    rows = []
    for m in range(5):
        for i in range(20):
            rank = i + 1 + (15 if (m == 0 and i == 0) else 0) + (1 if i == 5 else 0)  # model 0 alone drops i0
            # far down; every model puts i5 one rank lower than people do
            rows.append({"item": f"i{i}", "model": f"m{m}", "human_rank": i + 1, "model_rank": rank,
                         "rank_diff": (i + 1) - rank, "z_diff": 0.0, "prompt_key": "p"})
    mis = pd.DataFrame(rows)
    med = misalignment.consensus_misalignment(mis, ["prompt_key"], aggregate="median").set_index("item")
    mean = misalignment.consensus_misalignment(mis, ["prompt_key"], aggregate="mean").set_index("item")
    assert med.loc["i0", "rank_diff"] == 0 and mean.loc["i0", "rank_diff"] == -3
    assert med.loc["i0", "n_models"] == 5 and med.loc["i0", "share_over"] == 0
    ov = misalignment.top_overlap(med.reset_index(), mean.reset_index(), 1)
    assert ov["shared"] == 0 and ov["only_a"] == ["i5"] and ov["only_b"] == ["i0"]
    table = misalignment.top_overlap_by(med.reset_index(), mean.reset_index(), "prompt_key", 1, names=("median", "mean"))
    assert list(table["direction"]) == ["under", "over"] and table.loc[0, "only_mean"] == "i0"
    side = misalignment.extremes_side_by_side(mean.reset_index(), "prompt_key", 2, "under")
    assert side.loc[1, "p"] == "i0 (-3)" and side.loc[2, "p"] == "i5 (-1)"
    with pytest.raises(ValueError, match="aggregate"):
        misalignment.consensus_misalignment(mis, aggregate="mode")
