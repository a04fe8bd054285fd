"""The EloEverything misalignment chapter, tiny parameters: agreement with Bonett-Wright intervals, two methods, topics."""
from __future__ import annotations

import numpy as np

SMOLLM2 = "smollm2-135m-instruct"


def test_elo_misalignment(chapter, data_ready):
    c = chapter("elo_misalignment")
    r, md, n_charts = c.results, c.markdown, c.n_charts
    run, rob = r["run"], r["robustness"]
    assert run["n_items"] == 400 and run["human_elo_same_across_prompts"] is True
    assert {a["model"] for a in r["agreement"]} == {"R-Gem-2B", "S-Lla-8B-v0.2", "F-Lla-8B-v0.1"}
    for a in r["agreement"]:
        assert a["ci_low"] < a["rho"] < a["ci_high"]
        assert 0 < a["rho"] < 1  # the paper RMs agree with people, but far from perfectly
    assert 0.5 < rob["method_rho"] <= 1
    assert 0 <= rob["overlap_over"] <= 1 and len(rob["most_over"]) == 3 and len(rob["most_under"]) == 3
    assert not set(rob["most_over"]) & set(rob["most_under"])
    rhos = [a["rho"] for a in r["agreement"]]
    assert f"ρ = {min(rhos):.2f}" in md and f"ρ = {max(rhos):.2f}" in md
    assert rob["most_over"][0] in md
    a = r["agreement_summary"]
    assert (a["worst_rho"], a["best_rho"]) == (min(rhos), max(rhos)) and a["n_cells"] == len(rhos)
    assert f"median over {a['n_cells']} model×prompt cells is ρ = {a['median_rho']:.2f}" in md  # states the section
    assert n_charts >= 4
    assert r["beside"] is None and "Beside the paper RMs" not in md  # published mode: the paper RMs are the run
    # Spearman intervals are Bonett-Wright: wider than the Fisher-z interval for Pearson's r on the same n
    assert r["interval"] == "Bonett-Wright"
    for a in r["agreement"]:
        fisher_low = np.tanh(np.arctanh(a["rho"]) - 1.959964 / np.sqrt(run["n_items"] - 3))
        assert a["ci_low"] < fisher_low
    # one median-vs-mean check per table (one prompt + pooled) and direction
    assert r["aggregate"] == "median" and len(rob["table"]) == rob["n_lists"] == 2 * 2
    assert all(0 <= row["shared"] <= row["n"] for row in rob["table"])
    # WordNet topics: every item is counted once, the four themes are tested, p-values are probabilities
    t = r["topics"]
    assert t["n_items"] == run["n_items"] and 0 < t["n_with_topic"] < t["n_items"]
    assert t["n_flagged"] == round(0.1 * run["n_items"])
    assert {row["topic"] for row in t["themes"]} <= {"nature", "life", "technology", "human sexuality"}
    assert all(0 < row["p_fdr"] <= 1 and row["direction"] in ("over", "under", "") for row in t["supersenses"])
    assert f"{t['n_with_topic']:,} of {t['n_items']:,} items" in md and "got a topic" in md
    # themes per prompt first (one FDR over themes x prompts), every theme summarised by prompt
    assert {(row["topic"], row["prompt"]) for row in t["themes_by_prompt"]} <= {
        (th, "greatest") for th in ("nature", "life", "technology", "human sexuality")}
    assert all(row["direction"] in ("over", "under", "none") for row in t["themes_by_prompt"])
    assert set(t["theme_prompts"]) == {row["topic"] for row in t["themes_by_prompt"]}
    assert "Per prompt (the primary test)" in md and "Pooled over prompts (secondary)" in md
    assert f"by a title word other than the head ({t['n_sexuality_other_word']}):" in md
    assert r["trajectories"]["n_items"] == 6 and f"*{r['trajectories']['widest_item']}*" in md


def test_elo_misalignment_compute_keeps_the_paper_rms(chapter, needs_smollm2):
    """#43 item 7: a computed model's agreement with people is placed among the paper RMs' on the same items."""
    c = chapter("elo_misalignment", MODE="compute", MODELS=[SMOLLM2], N_ITEMS=80, MIN_CATEGORY_ITEMS=5, N_RESAMPLES=99,
                N_RESAMPLES_CI=49, TOP_K=3, N_TRAJECTORY_ITEMS=3)
    r, md = c.results, c.markdown
    near = r["beside"]
    assert r["mode"] == "compute" and near["prompts"] == ["greatest"] and near["unit"] == "EloEverything items"
    (row,) = near["rows"]
    rho = next(a["rho"] for a in r["agreement"])
    assert row["estimate"] == rho and row["n_reference"] == 10 and row["n_words"] == 80
    assert "Beside the paper RMs" in md and f"{row['estimate']:.3f}, {row['side']}" in md
    assert c.n_charts >= 1
