"""rmlib.stats.group_tests on planted family effects and nulls: ranks, permutation tests, ANOVA, mixed models, post-hoc tests."""
from __future__ import annotations

from scipy import stats as sps
import numpy as np
import pandas as pd
import pytest

from rmlib.stats import group_tests as gt


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


def test_flat_identical_panels_get_p_one_not_zero():
    d = pd.DataFrame({"model": list("abcd"), "family": ["g", "g", "l", "l"], "panel": "x", "median_rank": 5.0})
    flat = gt.permutation_tests(d, panels=["panel"], n_resamples=99)
    assert flat.loc[0, "p"] == 1.0 and not flat.loc[0, "reject"]


def test_one_way_by_matches_scipy_per_level_and_skips_levels_without_replicates():
    from scipy import stats as st
    from rmlib.stats import one_way_by
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"prompt": ["pos"] * 9 + ["neg"] * 3, "base": list("aaabbbccc") + list("abc"),
                       "gap": np.r_[rng.normal(0, 1, 3), rng.normal(1, 1, 3), rng.normal(3, 1, 3), [0.0, 1.0, 2.0]]})
    out = one_way_by(df, value="gap", factor="base", by="prompt")
    assert list(out["prompt"]) == ["pos"]                               # 'neg' has one replicate per base
    ref = st.f_oneway(*[g["gap"] for _, g in df[df.prompt == "pos"].groupby("base")])
    row = out.iloc[0]
    assert row["F"] == pytest.approx(ref.statistic) and row["p"] == pytest.approx(ref.pvalue) and row["df"] == "2, 6"
    assert 0 < row["eta_sq"] < 1 and row["factor"] == "base"
