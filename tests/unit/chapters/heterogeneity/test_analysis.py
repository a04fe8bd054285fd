"""rmbook.chapters.heterogeneity.analysis: partial Mantel tests of the τ matrix, on a planted run where base is a proxy
of size."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.heterogeneity import analysis as het
from rmlib.stats import similarity


def _planted_run(n_items: int = 300, seed: int = 0) -> het.SimilarityRun:
    """Eight models whose rankings drift with log size; the base family is 'big' for the four largest, so base
    matches only through size."""
    rng = np.random.default_rng(seed)
    log_size = np.sort(rng.uniform(0, 2, size=8))       # distinct sizes: no ties in the size design
    anchors = rng.normal(size=(n_items, 2))
    names = [f"m{i}" for i in range(8)]
    # each model's scores lie at an angle that grows with log size, so any two correlate by cos(angle gap): a
    # function of their size difference only
    scores = pd.DataFrame({m: np.cos(t * np.pi / 4) * anchors[:, 0] + np.sin(t * np.pi / 4) * anchors[:, 1]
                           + 0.3 * rng.normal(size=n_items) for m, t in zip(names, log_size)},
                          index=[f"i{k}" for k in range(n_items)])
    meta = pd.DataFrame({"base": ["small"] * 4 + ["big"] * 4, "developer": list("xyxyxyxy"),
                         "size_b": 10 ** log_size}, index=names)
    run = het.SimilarityRun("planted", names, scores, meta, {m: "RM score" for m in names}, "planted items")
    run.mats = {"kendall": similarity.pairwise_similarity(scores, "kendall")}
    return run


def test_base_given_size_drops_when_base_is_a_proxy_of_size():
    run = _planted_run()
    designs, skipped = het.similarity_designs(run.meta)
    assert set(designs) == {het.BASE_DESIGN, "same developer", het.SIZE_DESIGN} and not skipped
    rsa = het.design_rsa(run, designs, n_resamples=499).set_index("design")
    partial = het.design_partial_mantel(run, designs, n_resamples=499)
    assert len(partial) == 6
    hit = het.base_given_size(run)
    assert rsa.loc[het.BASE_DESIGN, "r"] > 0.4 and hit["r_design"] == pytest.approx(rsa.loc[het.BASE_DESIGN, "r"])
    assert hit["r"] < rsa.loc[het.BASE_DESIGN, "r"] - 0.3 and hit["p"] > 0.05 and hit["n_models"] == 8
    size = partial[(partial["design"] == het.SIZE_DESIGN) & (partial["given"] == het.BASE_DESIGN)].iloc[0]
    assert size["r"] > 0.5 and size["p"] < 0.05


def test_no_partial_mantel_without_a_second_design():
    run = _planted_run()
    designs, _ = het.similarity_designs(run.meta)
    assert het.design_partial_mantel(run, {het.BASE_DESIGN: designs[het.BASE_DESIGN]}).empty
    assert het.base_given_size(run) is None
