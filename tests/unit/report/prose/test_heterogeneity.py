"""rmlib.report.prose.heterogeneity: the RSA sentence names a matching design only when one matches, and says how
much of base family's match is left with size held fixed."""
from __future__ import annotations

import pandas as pd

from rmlib.analysis.heterogeneity import BASE_DESIGN, SIZE_DESIGN, SimilarityRun
from rmlib.report.prose import heterogeneity as ph


def _run(rsa: list[tuple], partial: list[dict] | None = None) -> SimilarityRun:
    models = ["a", "b", "c", "d", "e"]
    run = SimilarityRun("published", models, pd.DataFrame(), pd.DataFrame(), {}, "items")
    run.rsa = pd.DataFrame([{"design": d, "r": r, "p": p, "n_models": 5, "n_pairs": 10} for d, r, p in rsa])
    run.partial = pd.DataFrame(partial or [])
    return run


def test_a_negative_best_mantel_r_matches_no_design():
    run = _run([(BASE_DESIGN, -0.13, 0.67), (SIZE_DESIGN, -0.40, 0.95)])
    text = ph.rsa_markdown(run, {BASE_DESIGN: None, SIZE_DESIGN: None}, [])
    assert "**no design matches** the τ matrix: every Mantel r is at or below 0" in text
    assert "best matches" not in text and "Mantel r = -0.13" in text


def test_a_positive_r_that_chance_explains_matches_no_design():
    text = ph.rsa_markdown(_run([(BASE_DESIGN, 0.2, 0.3)]), {BASE_DESIGN: None}, [])
    assert "**no design matches** the τ matrix beyond chance: the closest is same base family" in text


def test_the_partial_mantel_is_reported_with_the_overlap_of_the_designs():
    partial = [{"design": BASE_DESIGN, "given": SIZE_DESIGN, "r": 0.27, "p": 0.0504, "r_design": 0.59,
                "r_given_design": 0.62, "n_models": 10},
               {"design": SIZE_DESIGN, "given": BASE_DESIGN, "r": 0.55, "p": 0.001, "r_design": 0.72,
                "r_given_design": 0.62, "n_models": 10}]
    run = _run([(BASE_DESIGN, 0.59, 0.008), (SIZE_DESIGN, 0.72, 0.001)], partial)
    text = ph.rsa_markdown(run, {BASE_DESIGN: None, SIZE_DESIGN: None}, [])
    assert "best matches the τ matrix is **similar size (log10 params)** (Mantel r = 0.72" in text
    assert "Base family and size overlap: the two designs correlate +0.62 over model pairs" in text
    assert "same base family has r = 0.59 alone and a partial r = 0.27 (p = 0.0504) with size held fixed" in text
    assert "partial r = 0.55 (p = 0.001) with base family held fixed" in text
