"""The heterogeneity chapter's sentences (templates/heterogeneity.md.j2), rendered from its results sections as the
chapter does: the RSA sentence names a matching design only when one matches and says how much of base family's
match is left with size held fixed; the agreement sentence names the least and most alike pairs against the floor."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.heterogeneity import results
from rmbook.chapters.heterogeneity.analysis import BASE_DESIGN, SIZE_DESIGN, SimilarityRun
from rmbook.report.prose import render


def _run(rsa: list[tuple], partial: list[dict] | None = None) -> SimilarityRun:
    models = ["a", "b", "c", "d", "e"]
    run = SimilarityRun("published", models, pd.DataFrame(), pd.DataFrame(), {}, "items")
    run.rsa = pd.DataFrame([{"design": d, "r": r, "p": p, "n_models": 5, "n_pairs": 10} for d, r, p in rsa])
    run.partial = pd.DataFrame(partial or [])
    return run


def _rsa(run: SimilarityRun, designs: dict, skipped: list[str], **kw) -> str:
    return render("heterogeneity", "rsa", s=results.design_match(run, designs, skipped, **kw))


def test_a_negative_best_mantel_r_matches_no_design():
    run = _run([(BASE_DESIGN, -0.13, 0.67), (SIZE_DESIGN, -0.40, 0.95)])
    text = _rsa(run, {BASE_DESIGN: None, SIZE_DESIGN: None}, [])
    assert "**no design matches** the τ matrix: every Mantel r is at or below 0" in text
    assert "best matches" not in text and "Mantel r = -0.13" in text
    assert text == ("*published*: **no design matches** the τ matrix: every Mantel r is at or below 0 (the largest, "
                    "same base family: Mantel r = -0.13, permutation p = 0.67, 5 models).")


def test_a_positive_r_that_chance_explains_matches_no_design():
    text = _rsa(_run([(BASE_DESIGN, 0.2, 0.3)]), {BASE_DESIGN: None}, [])
    assert text == ("*published*: **no design matches** the τ matrix beyond chance: the closest is same base family "
                    "(Mantel r = 0.20, permutation p = 0.3, 5 models; p ≥ 0.05).")


def test_the_partial_mantel_is_reported_with_the_overlap_of_the_designs():
    partial = [{"design": BASE_DESIGN, "given": SIZE_DESIGN, "r": 0.27, "p": 0.0504, "r_design": 0.59,
                "r_given_design": 0.62, "n_models": 10,
                "exact": True, "p_se": 0.0, "n_permutations": 120, "alternative": "two-sided"},
               {"design": SIZE_DESIGN, "given": BASE_DESIGN, "r": 0.55, "p": 0.001, "r_design": 0.72,
                "r_given_design": 0.62, "n_models": 10,
                "exact": True, "p_se": 0.0, "n_permutations": 120, "alternative": "two-sided"}]
    run = _run([(BASE_DESIGN, 0.59, 0.008), (SIZE_DESIGN, 0.72, 0.001)], partial)
    text = _rsa(run, {BASE_DESIGN: None, SIZE_DESIGN: None}, [])
    assert "best matches the τ matrix is **similar size (log10 params)** (Mantel r = 0.72" in text
    assert ("(Mantel r = 0.72, permutation p = 0.001, 5 models). Base family and size overlap: the two designs "
            "correlate +0.62 over model pairs (models that share a base family tend to be of similar size), so each "
            "is also tested with the other held fixed (partial Mantel test, the τ matrix's labels permuted): ") in text
    assert "same base family has r = 0.59 alone and a partial r = 0.27 (p = 0.0504) with size held fixed;" in text
    assert text.endswith("; similar size (log10 params) has a partial r = 0.55 (p = 0.001) with base family held "
                         "fixed.")


def _similar(kendall: dict, rbo_top: dict, rbo_bottom: dict, kinds: dict | None = None) -> SimilarityRun:
    """Three models with planted pairwise τ and RBO (from the top, from the bottom) and a planted shuffled floor."""
    models = ["A", "B", "C"]

    def mat(values: dict) -> pd.DataFrame:
        m = pd.DataFrame(1.0, index=models, columns=models)
        for (a, b), v in values.items():
            m.loc[a, b] = m.loc[b, a] = v
        return m

    run = SimilarityRun("published", models, pd.DataFrame(), pd.DataFrame(),
                        kinds or {m: "RM score (published)" for m in models}, "400 EloEverything items")
    run.mats = {"kendall": mat(kendall), "rbo": mat(rbo_top), "rbo (bottom)": mat(rbo_bottom)}
    run.floor = pd.DataFrame({"statistic": ["Kendall τ", "Spearman ρ", "RBO from the top (p = 0.98)"],
                              "shuffled mean": [0.0, 0.0, 0.05], "shuffled 2.5%": [-0.012, -0.02, 0.03],
                              "shuffled 97.5%": [0.011, 0.02, 0.07]})
    return run


TAU = {("A", "B"): 0.6, ("A", "C"): 0.2, ("B", "C"): 0.4}


def test_agreement_names_the_least_and_most_alike_pairs_and_the_shuffled_floor():
    run = _similar(TAU, {("A", "B"): 0.7, ("A", "C"): 0.5, ("B", "C"): 0.6},
                   {("A", "B"): 0.4, ("A", "C"): 0.3, ("B", "C"): 0.5})
    text = render("heterogeneity", "agreement", s=results.agreement(run))
    assert "Kendall τ between models ranges from 0.20 (A vs C) to 0.60 (A vs B), median 0.40" in text
    assert "shuffled scores give τ between -0.012 and 0.011" in text
    assert "RBO from the top has median 0.60 and from the bottom 0.40 (shuffled floor 0.05)" in text
    assert "a median gap of +0.20, so the models agree more about their favourite items" in text
    assert text.startswith("*published*: ") and text.endswith("least favourite ones (top-weighted agreement).")
    assert render("heterogeneity", "floor_heading", s=results.agreement(run)) == "**published**"


def test_agreement_says_less_when_the_bottom_is_more_alike_than_the_top():
    run = _similar(TAU, {("A", "B"): 0.2, ("A", "C"): 0.3, ("B", "C"): 0.25},
                   {("A", "B"): 0.6, ("A", "C"): 0.5, ("B", "C"): 0.7})
    text = render("heterogeneity", "agreement", s=results.agreement(run))
    assert "a median gap of -0.35, so the models agree less about their favourite items" in text
    assert "agree more" not in text


def test_run_line_counts_the_implicit_rewards():
    about = render("heterogeneity", "about", s=results.about(_similar(TAU, TAU, TAU)))
    assert about == "**published.** 3 models on 400 EloEverything items. All are reward models."
    lms = _similar(TAU, TAU, TAU, kinds={"A": "LM log-prob", "B": "LM log-prob", "C": "RM score"})
    text = render("heterogeneity", "about", s=results.about(lms))
    assert text == ("**published.** 3 models on 400 EloEverything items. 2 of them are language models whose reward "
                    "is the log-probability of the answer: an **implicit** reward, not a trained RM.")


def test_mds_gives_the_share_of_each_axis():
    run = _run([])
    run.explained = pd.Series([0.614, 0.208, 0.1])
    assert render("heterogeneity", "mds", s=results.mds_map(run)) == (
        "*published*: the two axes carry 61% and 21% of the eigenvalue mass.")


def test_rsa_is_skipped_with_fewer_than_four_models_or_no_design():
    small = _similar(TAU, TAU, TAU)
    assert _rsa(small, {BASE_DESIGN: None}, []) == (
        "*published*: RSA needs at least 4 models; this run has 3, so it is skipped.")
    text = _rsa(_run([]), {}, ["same base family (labels constant or all distinct)"])
    assert text == ("*published*: no usable design matrix for these models: same base family (labels constant or all "
                    "distinct).")


def test_a_clear_match_is_named_with_the_skipped_designs_after_it():
    text = _rsa(_run([(BASE_DESIGN, 0.45, 0.004), ("same developer", 0.2, 0.2)]),
                {BASE_DESIGN: None, "same developer": None}, ["similar size (sizes unknown or equal)"])
    assert text == ("*published*: the design that best matches the τ matrix is **same base family** (Mantel r = 0.45, "
                    "permutation p = 0.004, 5 models). Skipped: similar size (sizes unknown or equal).")
    # the threshold is a parameter: the same r is "beyond chance" only below alpha
    text = _rsa(_run([(BASE_DESIGN, 0.45, 0.004)]), {BASE_DESIGN: None}, [], alpha=0.001)
    assert "**no design matches** the τ matrix beyond chance" in text and "p ≥ 0.001)." in text


def test_a_base_design_that_size_fixes_completely_is_called_confounded():
    partial = [{"design": BASE_DESIGN, "given": SIZE_DESIGN, "r": float("nan"), "p": float("nan"), "r_design": 0.5,
                "r_given_design": 0.97, "n_models": 5,
                "exact": True, "p_se": 0.0, "n_permutations": 120, "alternative": "two-sided"}]
    text = _rsa(_run([(BASE_DESIGN, 0.5, 0.01), (SIZE_DESIGN, 0.3, 0.04)], partial),
                {BASE_DESIGN: None, SIZE_DESIGN: None}, [])
    assert text.endswith("5 models). Size and base family are confounded here (the designs correlate +0.97), so the "
                         "base design cannot be tested with size held fixed.")
    assert "partial r" not in text


def test_designs_that_do_not_overlap_are_not_said_to_share_models():
    partial = [{"design": BASE_DESIGN, "given": SIZE_DESIGN, "r": 0.4, "p": 0.02, "r_design": 0.38,
                "r_given_design": -0.1, "n_models": 5,
                "exact": True, "p_se": 0.0, "n_permutations": 120, "alternative": "two-sided"}]
    text = _rsa(_run([(BASE_DESIGN, 0.38, 0.02), (SIZE_DESIGN, 0.1, 0.3)], partial),
                {BASE_DESIGN: None, SIZE_DESIGN: None}, [])
    assert "5 models). The two designs correlate -0.10 over model pairs, so each is also tested" in text
    assert "overlap" not in text and "partial r = 0.40 (p = 0.02) with size held fixed." in text
    assert "with base family held fixed" not in text   # no size-given-base row
