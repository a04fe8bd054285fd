"""rmlib.analysis.results.heterogeneity: the chapter's results built from a small planted run, stored and read back."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.analysis import heterogeneity as het
from rmlib.analysis.results import heterogeneity as results
from rmlib.storage import ResultsError, read_results, write_results


def _run() -> het.SimilarityRun:
    rng = np.random.default_rng(1)
    base = rng.normal(size=60)
    names = [f"m{i}" for i in range(5)]
    scores = pd.DataFrame({m: base + rng.normal(scale=0.5 + i, size=60) for i, m in enumerate(names)})
    meta = pd.DataFrame({"base": list("aabbb"), "developer": list("xyxyx"), "size_b": [1.0, 2.0, 8.0, 9.0, 27.0]},
                        index=names)
    return het.SimilarityRun("published", names, scores, meta, {m: "RM score" for m in names}, "planted items")


def test_the_results_of_a_planted_run_are_typed_and_read_back(tmp_path):
    run = _run()
    het.similarities(run)
    het.noise_floor(run, n_shuffles=2)
    designs, _ = het.similarity_designs(run.meta)
    het.design_rsa(run, designs, n_resamples=99)
    het.design_partial_mantel(run, designs, n_resamples=99)
    res = results.chapter_results("published", {"published": run})
    pub = res.runs["published"]
    assert pub.n_items == 60 and pub.tau_min <= pub.tau_median <= pub.tau_max
    assert pub.partial_mantel.design == het.BASE_DESIGN and pub.partial_mantel.given == het.SIZE_DESIGN
    assert len(pub.partial_mantels) == 6 and len(pub.mds_explained) == 2
    write_results(res, tmp_path)
    assert read_results("heterogeneity", tmp_path, results.HeterogeneityResults) == res
    with pytest.raises(ValueError):
        results.chapter_results("all", {"published": run})  # not a MODE


def test_a_run_without_designs_has_no_partial_test():
    run = _run()
    het.similarities(run)
    het.noise_floor(run, n_shuffles=2)
    res = results.chapter_results("compute", {"compute": run})
    assert res.runs["compute"].partial_mantel is None and res.runs["compute"].partial_mantels == []
    with pytest.raises(ResultsError):
        read_results("heterogeneity", "/nonexistent", results.HeterogeneityResults)
