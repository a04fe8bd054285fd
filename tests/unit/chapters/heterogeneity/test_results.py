"""rmbook.chapters.heterogeneity.results: the chapter's results built section by section from a small planted run,
stored and read back."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.heterogeneity import analysis as het
from rmbook.chapters.heterogeneity import results
from rmbook.results import ResultsError, read_results, write_results


def _run() -> het.SimilarityRun:
    rng = np.random.default_rng(1)
    base = rng.normal(size=60)
    names = [f"m{i}" for i in range(5)]
    scores = pd.DataFrame({m: base + rng.normal(scale=0.5 + i, size=60) for i, m in enumerate(names)})
    meta = pd.DataFrame({"base": list("aabbb"), "developer": list("xyxyx"), "size_b": [1.0, 2.0, 8.0, 9.0, 27.0]},
                        index=names)
    return het.SimilarityRun("published", names, scores, meta, {m: "RM score" for m in names}, "planted items")


def _sections(run: het.SimilarityRun, designs: dict, skipped: list[str]) -> results.SimilarityRunResults:
    """The run through the chapter's cells, each section built where the chapter builds it."""
    intro = results.about(run)
    het.similarities(run)
    het.noise_floor(run, n_shuffles=2)
    agree, mds = results.agreement(run), results.mds_map(run)
    het.design_rsa(run, designs, n_resamples=99)
    het.design_partial_mantel(run, designs, n_resamples=99)
    return results.run_results(run, intro, agree, mds, results.design_match(run, designs, skipped))


def test_the_results_of_a_planted_run_are_typed_and_read_back(tmp_path):
    run = _run()
    designs, skipped = het.similarity_designs(run.meta)
    pub = _sections(run, designs, skipped)
    res = results.chapter_results("published", {"published": pub})
    a = pub.agreement
    assert pub.n_items == 60 and a.tau_min <= a.tau_median <= a.tau_max
    tau = run.mats["kendall"]
    assert tau.loc[a.least_alike[0], a.least_alike[1]] == pytest.approx(a.tau_min)
    assert tau.loc[a.most_alike[0], a.most_alike[1]] == pytest.approx(a.tau_max)
    assert a.rbo_gap == pytest.approx(a.rbo_top_median - a.rbo_bottom_median)
    assert a.agree_more_at_top == (a.rbo_gap > 0) and a.tau_shuffled_low <= a.tau_shuffled_high
    assert pub.about.n_models == 5 and pub.about.n_implicit == 0 and pub.about.what == "planted items"
    assert 0 <= pub.mds.second_axis <= pub.mds.first_axis <= 1
    assert [pub.mds.first_axis, pub.mds.second_axis] == run.explained.tolist()
    base = pub.designs.base_given_size
    assert (base.design, base.given) == (het.BASE_DESIGN, het.SIZE_DESIGN)
    assert base in pub.partial_mantels  # the one of every design given every other one
    assert (pub.designs.size_given_base.design, pub.designs.size_given_base.given) == (het.SIZE_DESIGN, het.BASE_DESIGN)
    best = max(pub.rsa, key=lambda x: x["r"])
    d = pub.designs
    assert d.status == "tested" and (d.best_design, d.best_r, d.best_p) == (best["design"], best["r"], best["p"])
    assert len(pub.partial_mantels) == 6
    write_results(res, tmp_path)
    assert read_results("heterogeneity", tmp_path, results.HeterogeneityResults) == res
    with pytest.raises(ValueError):
        results.chapter_results("all", {"published": pub})  # not a MODE


def test_a_run_without_designs_has_no_partial_test():
    run = _run()
    comp = _sections(run, {}, ["same base family (labels unknown)"])
    res = results.chapter_results("compute", {"compute": comp})
    c = res.runs["compute"]
    assert c.designs.base_given_size is None and c.partial_mantels == [] and c.rsa == []
    assert (c.designs.status, c.designs.best_design, c.designs.verdict) == ("no design", None, None)
    assert not c.designs.base_confounded and not c.designs.designs_overlap
    with pytest.raises(ResultsError):
        read_results("heterogeneity", "/nonexistent", results.HeterogeneityResults)


def test_which_design_matches_is_decided_by_the_largest_r_and_alpha():
    rsa = pd.DataFrame({"design": ["a", "b"], "r": [0.3, 0.6], "p": [0.01, 0.04], "n_models": [5, 5]})
    assert het.best_design(rsa) == {"design": "b", "r": 0.6, "p": 0.04, "n_models": 5, "verdict": "match"}
    assert het.best_design(rsa, alpha=0.01)["verdict"] == "chance"
    assert het.best_design(rsa.assign(r=[-0.1, 0.0]))["verdict"] == "no positive r"
    assert het.best_design(pd.DataFrame()) is None
    small = het.SimilarityRun("compute", ["a", "b", "c"], pd.DataFrame(), pd.DataFrame(), {}, "items")
    assert results.design_match(small, {"x": None}, []).status == "too few models"
