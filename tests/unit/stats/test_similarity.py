"""rmlib.stats.similarity: RBO against hand-computed values, correlations, MDS, Mantel tests and RSA on planted designs."""
from __future__ import annotations

import math

from scipy import stats
import numpy as np
import pandas as pd
import pytest

from rmlib.stats import similarity as sim


def _two_family_scores(n_items=400, n_per_family=5, noise=0.8, seed=0):
    """Models of the same family share a latent ranking; the two families' latents are independent."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(n_items, 2))
    cols, fam = {}, {}
    for f in range(2):
        for i in range(n_per_family):
            name = f"fam{f}_m{i}"
            cols[name] = latent[:, f] + noise * rng.normal(size=n_items)
            fam[name] = f"family{f}"
    return pd.DataFrame(cols, index=[f"item{i}" for i in range(n_items)]), pd.Series(fam)


def test_rbo_identical_and_disjoint():
    items = list("abcdefgh")
    assert sim.rbo_ext(items, items, p=0.9) == pytest.approx(1.0)
    assert sim.rbo_ext(list("abcd"), list("wxyz"), p=0.9) == pytest.approx(0.0)


def test_rbo_hand_computed_cases():
    # Webber et al. eq. 32, equal lengths: (1-p)/p * sum_d A_d p^d + A_k p^k.
    # [a,b,c] vs [b,a,c], p=.5: A = (0, 1, 1) -> (0 + .25 + .125) + .125 = 0.5
    assert sim.rbo_ext(list("abc"), list("bac"), p=0.5) == pytest.approx(0.5)
    # [a,b] vs [a,c], p=.5: A = (1, .5) -> (.5 + .125) + .5 * .25 = 0.75
    assert sim.rbo_ext(list("ab"), list("ac"), p=0.5) == pytest.approx(0.75)


def _rbo_ext_reference(s, t, p):
    """Webber et al. eq. 32 for two lists of equal length k, written directly from the definition."""
    k = len(s)
    agreement = [len(set(s[:d]) & set(t[:d])) / d for d in range(1, k + 1)]
    return (1 - p) / p * sum(a * p**d for d, a in enumerate(agreement, start=1)) + agreement[-1] * p**k


@pytest.mark.parametrize("depth", [50, 15])
def test_rbo_matches_definition_on_random_rankings(depth):
    rng = np.random.default_rng(depth)
    items = [f"t{i}" for i in range(50)]
    a, b = list(rng.permutation(items))[:depth], list(rng.permutation(items))[:depth]
    assert sim.rbo_ext(a, b, p=0.9) == pytest.approx(_rbo_ext_reference(a, b, 0.9), abs=1e-12)


def test_rbo_is_top_weighted():
    base = list("abcdefghij")
    swap_top = list("bacdefghij")
    swap_bottom = list("abcdefghji")
    assert sim.rbo_ext(base, swap_top, p=0.8) < sim.rbo_ext(base, swap_bottom, p=0.8) < 1.0


def test_rbo_rejects_bad_p_and_duplicates():
    with pytest.raises(ValueError, match="p must be"):
        sim.rbo_ext(list("ab"), list("ab"), p=1.0)
    with pytest.raises(ValueError, match="duplicate"):
        sim.rbo_ext(list("aab"), list("abc"))


def test_pairwise_known_values():
    df = pd.DataFrame({"x": [1.0, 2, 3], "y": [1.0, 3, 2], "rev": [3.0, 2, 1]}, index=list("abc"))
    tau = sim.pairwise_similarity(df, "kendall")
    rho = sim.pairwise_similarity(df, "spearman")
    assert tau.loc["x", "y"] == pytest.approx(1 / 3)  # 2 concordant, 1 discordant of 3 pairs
    assert rho.loc["x", "y"] == pytest.approx(0.5)  # 1 - 6*2/(3*8)
    assert tau.loc["x", "rev"] == pytest.approx(-1.0)
    assert np.allclose(np.diag(tau), 1) and np.allclose(tau, tau.T)
    # RBO ranks best-first: x ranks c,b,a; y ranks b,c,a -> same as the [a,b,c] vs [b,a,c] case above
    assert sim.pairwise_similarity(df, "rbo", p=0.5).loc["x", "y"] == pytest.approx(0.5)
    # bottom=True compares the pessimal end: x ranks a,b,c; y ranks a,c,b -> A = (1, .5, 1)
    expected = (1 * 0.5 + 0.5 * 0.25 + 1 * 0.125) + 1 * 0.125
    assert sim.pairwise_similarity(df, "rbo", p=0.5, bottom=True).loc["x", "y"] == pytest.approx(expected)


def test_pairwise_rbo_separates_families():
    df, fam = _two_family_scores(n_items=300, n_per_family=3)
    r = sim.pairwise_similarity(df, "rbo", p=0.98)
    same = [r.loc[a, b] for a in r.index for b in r.columns if a < b and fam[a] == fam[b]]
    diff = [r.loc[a, b] for a in r.index for b in r.columns if a < b and fam[a] != fam[b]]
    assert min(same) > max(diff)


def test_pairwise_bad_input():
    df = pd.DataFrame({"a": [1.0, 2, np.nan, 4], "b": [1.0, 2, 3, 4]})
    with pytest.raises(ValueError, match="NaN"):
        sim.pairwise_similarity(df)
    with pytest.raises(ValueError, match="at least 2 model"):
        sim.pairwise_similarity(df[["b"]])
    with pytest.raises(ValueError, match="non-numeric"):
        sim.pairwise_similarity(df.fillna(0).assign(word=list("wxyz")))
    with pytest.raises(ValueError, match="method"):
        sim.pairwise_similarity(df.fillna(0), "pearson")


def test_mds_reproduces_euclidean_configuration():
    rng = np.random.default_rng(1)
    pts = rng.normal(size=(7, 2))
    d = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
    coords, explained = sim.classical_mds(pd.DataFrame(d, index=list("abcdefg"), columns=list("abcdefg")))
    d_hat = np.linalg.norm(coords.to_numpy()[:, None] - coords.to_numpy()[None], axis=-1)
    assert np.allclose(d, d_hat, atol=1e-8)
    assert explained.sum() == pytest.approx(1.0)


def test_mds_recovers_two_clusters():
    df, fam = _two_family_scores()
    coords, _ = sim.classical_mds(1 - sim.pairwise_similarity(df, "kendall"))
    side = np.sign(coords["dim1"])
    # The first axis splits the families perfectly (its sign is arbitrary).
    assert pd.crosstab(side, fam).to_numpy().max(axis=0).tolist() == [5, 5]
    assert side.nunique() == 2


def test_mds_bad_input():
    with pytest.raises(ValueError, match="square"):
        sim.classical_mds(pd.DataFrame(np.zeros((3, 2))))
    d = pd.DataFrame(np.ones((3, 3)), index=list("abc"), columns=list("abc"))
    with pytest.raises(ValueError, match="zero diagonal"):
        sim.classical_mds(d)


def test_rsa_detects_planted_family_design():
    df, fam = _two_family_scores()
    tau = sim.pairwise_similarity(df, "kendall")
    rng = np.random.default_rng(3)
    unrelated = pd.Series(rng.permutation(fam.to_numpy()), index=fam.index)
    while (unrelated == fam).mean() in (0.0, 1.0):  # avoid a relabelling that is the family design itself
        unrelated = pd.Series(rng.permutation(fam.to_numpy()), index=fam.index)
    res = sim.rsa(tau, {"family": sim.same_group_design(fam), "shuffled": sim.same_group_design(unrelated)},
                  n_resamples=2000, exact_limit=0).set_index("design")
    assert res.loc["family", "r"] > 0.7 and res.loc["family", "p"] < 0.05
    # exact and two-sided: a perfect match of two families of 5 is shared by the 2 * 5! * 5! relabellings that keep
    # the families, so its p is twice that share of 10!: 1/63, the smallest this design can ever give
    exact = sim.mantel_test(tau, sim.same_group_design(fam))
    assert exact["exact"] and exact["p_se"] == 0 and exact["r"] == pytest.approx(res.loc["family", "r"])
    assert exact["p"] == pytest.approx(2 * 2 * math.factorial(5) ** 2 / math.factorial(10))
    assert res.loc["shuffled", "r"] < res.loc["family", "r"]
    assert res.loc["family", "n_pairs"] == 45


def test_mantel_matches_scipy_correlation_and_null_rate():
    rng = np.random.default_rng(0)
    n, hits, n_seeds = 7, 0, 100
    iu = np.triu_indices(n, 1)
    for seed in range(n_seeds):
        a = rng.normal(size=(n, n))
        b = rng.normal(size=(n, n))
        a, b = pd.DataFrame(a + a.T), pd.DataFrame(b + b.T)
        res = sim.mantel_test(a, b, n_resamples=499, seed=seed)
        if seed == 0:
            assert res["r"] == pytest.approx(stats.spearmanr(a.to_numpy()[iu], b.to_numpy()[iu]).statistic)
        hits += res["p"] < 0.05
    # Under the null, P(p < .05) = .05; a binomial(100, .05) exceeds 12 with probability < 0.001.
    assert hits <= 12


def test_difference_design_and_errors():
    d = sim.difference_design(pd.Series({"a": 1e9, "b": 1e10, "c": 1e9}))
    assert d.loc["a", "b"] == pytest.approx(-1.0) and d.loc["a", "c"] == 0
    with pytest.raises(ValueError, match="positive"):
        sim.difference_design(pd.Series({"a": 0.0, "b": 1.0}))
    with pytest.raises(ValueError, match="lacks models"):
        sim.rsa(pd.DataFrame(np.eye(4), index=list("abcd"), columns=list("abcd")),
                {"fam": sim.same_group_design(pd.Series({"a": 1, "b": 1, "c": 2}))})


def test_shuffled_baseline():
    df, fam = _two_family_scores(n_items=300, n_per_family=2)
    tau0 = sim.shuffled_similarity_baseline(df, "kendall", n_shuffles=5)
    assert len(tau0) == 6 * 5
    assert abs(tau0["similarity"].mean()) < 3 / np.sqrt(300)
    rbo0 = sim.shuffled_similarity_baseline(df, "rbo", n_shuffles=3, p=0.98)
    observed = sim.pairwise_similarity(df, "rbo", p=0.98)
    # Unrelated full rankings still overlap: the RBO floor is above 0, and same-family pairs sit well above it.
    assert 0.0 < rbo0["similarity"].mean() < observed.loc["fam0_m0", "fam0_m1"]


def _size_driven(seed=0, n=10, noise=0.05):
    """A similarity matrix driven by (log) size only, and a base design that is a proxy of size: the five largest
    models share one base, the five smallest another, so the plain Mantel r of base is high for size's sake."""
    rng = np.random.default_rng(seed)
    names = [f"m{i}" for i in range(n)]
    log_size = pd.Series(np.sort(rng.uniform(0, 2, size=n)), index=names)
    e = rng.normal(scale=noise, size=(n, n))
    values = 1 - np.abs(log_size.to_numpy()[:, None] - log_size.to_numpy()[None, :]) + (e + e.T) / 2
    np.fill_diagonal(values, 1.0)
    simil = pd.DataFrame(values, index=names, columns=names)
    base = pd.Series(["big" if i >= n // 2 else "small" for i in range(n)], index=names)
    return simil, sim.same_group_design(base), sim.difference_design(10 ** log_size)


def test_partial_mantel_drops_a_base_design_that_is_a_proxy_of_size():
    simil, base, size = _size_driven()
    plain = sim.mantel_test(simil, base, n_resamples=999, exact_limit=0)  # Monte Carlo: exactness is not the point
    part = sim.partial_mantel_test(simil, base, size, n_resamples=999, exact_limit=0)
    assert plain["r"] > 0.4 and plain["p"] < 0.05                     # base "matches" on its own ...
    assert part["r_ab"] == pytest.approx(plain["r"]) and part["r_bc"] > 0.4
    assert abs(part["r"]) < 0.25 and part["p"] > 0.05                 # ... but not with size held fixed
    kept = sim.partial_mantel_test(simil, size, base, n_resamples=999, exact_limit=0)
    assert kept["r"] > 0.8 and kept["p"] < 0.01                       # size keeps its match given base


def test_partial_mantel_r_is_the_correlation_of_residuals_on_the_third_matrix():
    simil, base, size = _size_driven(seed=1, noise=0.3)
    iu = np.triu_indices(10, 1)
    x, y, z = (stats.rankdata(m.to_numpy()[iu]) for m in (simil, base, size))

    def resid(v):
        return v - np.polyval(np.polyfit(z, v, 1), z)

    res = sim.partial_mantel_test(simil, base, size, n_resamples=99, exact_limit=0)
    assert res["r"] == pytest.approx(np.corrcoef(resid(x), resid(y))[0, 1])
    assert res["n_pairs"] == 45 and res["method"] == "spearman"
    with pytest.raises(ValueError, match="constant"):
        sim.partial_mantel_test(simil, base, pd.DataFrame(np.ones((10, 10)), index=simil.index,
                                                          columns=simil.index))


def test_partial_mantel_null_rate():
    rng = np.random.default_rng(0)
    n, hits, n_seeds = 7, 0, 60
    for seed in range(n_seeds):
        a, b, c = (rng.normal(size=(n, n)) for _ in range(3))
        a, b, c = (pd.DataFrame(m + m.T) for m in (a, b, c))
        hits += sim.partial_mantel_test(a, b, c, n_resamples=199, seed=seed)["p"] < 0.05
    # Under the null, P(p < .05) = .05; a binomial(60, .05) exceeds 9 with probability < 0.002.
    assert hits <= 9


def test_label_permutations_are_exact_up_to_the_limit_and_carry_their_error_beyond_it():
    """#38 item 8: a Monte Carlo p at the threshold decided a verdict. Up to EXACT_LIMIT relabellings the p is over
    all of them (equal to scipy's own exact enumeration), beyond it the p comes with its standard error."""
    from rmlib.stats.permutation import all_permutations

    perms = all_permutations(5)
    assert perms.shape == (120, 5) and len({tuple(p) for p in perms}) == 120
    simil, base, size = _size_driven(seed=2, n=6, noise=0.3)
    exact = sim.partial_mantel_test(simil, base, size, n_resamples=99)
    assert exact["exact"] and exact["n_permutations"] == math.factorial(6) and exact["p_se"] == 0
    ua, ub = (sim.upper_triangle(m.to_numpy()) for m in (simil, base))
    iu = np.triu_indices(6, 1)
    ranked_a = np.zeros((6, 6))
    ranked_a[iu] = stats.rankdata(ua)
    ranked_a += ranked_a.T
    ref = stats.permutation_test(
        (np.arange(6),), lambda perm: stats.pearsonr(ranked_a[np.ix_(perm, perm)][iu], stats.rankdata(ub))[0],
        permutation_type="pairings", n_resamples=np.inf, alternative="two-sided")
    plain = sim.mantel_test(simil, base)
    assert plain["exact"] and plain["p"] == pytest.approx(ref.pvalue, rel=1e-12)
    mc = sim.partial_mantel_test(simil, base, size, n_resamples=400, exact_limit=100)
    assert not mc["exact"] and mc["n_permutations"] == 400
    assert mc["p_se"] == pytest.approx(np.sqrt(mc["p"] * (1 - mc["p"]) / 400))
    assert abs(mc["p"] - exact["p"]) < 4 * mc["p_se"] + 1e-9


def test_mantel_tests_are_two_sided_by_default():
    """#38 item 7: one sidedness convention. A similarity that goes against the design is significant (r < 0),
    not chance as under the old one-sided default."""
    simil, base, size = _size_driven(seed=0, n=8)
    against = sim.mantel_test(-simil, size)
    assert against["alternative"] == "two-sided" and against["r"] < -0.8 and against["p"] < 0.01
    assert sim.mantel_test(-simil, size, alternative="greater")["p"] > 0.99
    assert sim.partial_mantel_test(-simil, size, base)["p"] < 0.05


def _square(values, names):
    return pd.DataFrame(values, index=names, columns=names)


@pytest.mark.parametrize("test", ["plain", "partial"])
def test_mantel_tests_refuse_what_they_cannot_test_with_one_rule(test):
    """Both tests align their matrices by model name and refuse, with the matrix named, too few models, other
    models, a constant matrix and an unknown method."""
    rng = np.random.default_rng(0)
    names = list("abcde")
    sym, other = rng.normal(size=(5, 5)), rng.normal(size=(5, 5))
    good, third = _square(sym + sym.T, names), _square(other + other.T, names)

    def run(a, b, **kw):
        if test == "plain":
            return sim.mantel_test(a, b, n_resamples=9, **kw)
        return sim.partial_mantel_test(a, b, third.loc[a.index, a.columns], n_resamples=9, **kw)

    shuffled = good.loc[names[::-1], names[::-1]]
    assert run(good, shuffled)["r"] == pytest.approx(1.0)  # aligned by name, not by position
    with pytest.raises(ValueError, match="needs at least 4 models, got 3"):
        run(good.iloc[:3, :3], good.iloc[:3, :3])
    with pytest.raises(ValueError, match="must cover the same models"):
        run(good, _square(good.to_numpy(), list("abcdz")))
    with pytest.raises(ValueError, match="design matrix b? ?is constant over model pairs"):
        run(good, _square(np.ones((5, 5)), names))
    with pytest.raises(ValueError, match="method must be 'spearman' or 'pearson'"):
        run(good, good, method="kendall")
