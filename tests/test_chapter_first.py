"""The first four chapters run under papermill with tiny parameters; assertions are on what they compute.

Each chapter writes its headline numbers to RESULTS_DIR/<chapter>.json (the book runner sets RESULTS_DIR); the
executed notebook must contain no error output and its markdown findings must carry the same numbers.
"""
import json

import numpy as np
import pytest

from conftest import CHAPTER_RUNS


@pytest.fixture(scope="module")
def data_ready():
    from rmlib.data import DataError, path

    try:
        for f in ("paper_facct2025/elo/greatest_thing_one_word.csv", "paper_facct2025/corpora/1_1_all_alpha.txt",
                  "lexicons/warriner2013_vad/Ratings_Warriner_et_al.csv"):
            path(f)
    except DataError as e:
        pytest.skip(f"data directory not filled: {e}")


@pytest.fixture
def run(run_chapter):
    def go(name, **overrides):
        r = run_chapter(name, **{**CHAPTER_RUNS.get(name, {}), **overrides})
        nb = json.loads(r.path.read_text())
        outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
        assert not [o for o in outputs if o.get("output_type") == "error"]
        markdown = "\n".join("".join(o["data"]["text/markdown"]) for o in outputs
                             if "text/markdown" in o.get("data", {}))
        charts = sum("rmlib_offline" in json.dumps(o.get("data", {})) or "vegaEmbed" in json.dumps(o.get("data", {}))
                     for o in outputs)
        return r.results, markdown, charts
    return go


def test_elo_misalignment(run, data_ready):
    r, md, n_charts = run("elo_misalignment")
    assert r["n_items"] == 400 and r["human_elo_same_across_prompts"] is True
    assert {a["model"] for a in r["agreement"]} == {"R-Gem-2B", "S-Lla-8B-v0.2", "F-Lla-8B-v0.1"}
    for a in r["agreement"]:
        assert a["ci_low"] < a["rho"] < a["ci_high"]
        assert 0 < a["rho"] < 1  # the paper RMs agree with people, but far from perfectly
    assert 0.5 < r["method_rho"] <= 1
    assert 0 <= r["overlap_over"] <= 1 and len(r["most_over"]) == 3 and len(r["most_under"]) == 3
    assert not set(r["most_over"]) & set(r["most_under"])
    rhos = [a["rho"] for a in r["agreement"]]
    assert f"ρ = {min(rhos):.2f}" in md and f"ρ = {max(rhos):.2f}" in md
    assert r["most_over"][0] in md
    assert n_charts >= 4
    # Spearman intervals are Bonett-Wright: wider than the Fisher-z interval for Pearson's r on the same n
    assert r["interval"] == "Bonett-Wright"
    for a in r["agreement"]:
        fisher_low = np.tanh(np.arctanh(a["rho"]) - 1.959964 / np.sqrt(r["n_items"] - 3))
        assert a["ci_low"] < fisher_low
    # one median-vs-mean check per table (one prompt + pooled) and direction
    assert r["aggregate"] == "median" and len(r["aggregate_robustness"]) == 2 * 2
    assert all(0 <= row["shared"] <= row["n"] for row in r["aggregate_robustness"])
    # WordNet topics: every item is counted once, the four themes are tested, p-values are probabilities
    t = r["topics"]
    assert t["n_items"] == r["n_items"] and 0 < t["n_with_topic"] < t["n_items"]
    assert t["n_flagged"] == round(0.1 * r["n_items"])
    assert {row["topic"] for row in t["themes"]} <= {"nature", "life", "technology", "human sexuality"}
    assert all(0 < row["p_fdr"] <= 1 and row["direction"] in ("over", "under", "") for row in t["supersenses"])
    assert f"{t['n_with_topic']:,} of {t['n_items']:,} items" in md and "got a topic" in md


def test_heterogeneity_published_and_compute(run, data_ready):
    r, md, n_charts = run("heterogeneity")
    pub, comp = r["runs"]["published"], r["runs"]["compute"]
    k = np.array([[pub["kendall"][a][b] for b in pub["kendall"]] for a in pub["kendall"]])
    assert np.allclose(k, k.T) and np.allclose(np.diag(k), 1)
    assert pub["tau_min"] <= pub["tau_median"] <= pub["tau_max"] < 1
    tau_floor = pub["floor"][0]
    assert abs(tau_floor["shuffled mean"]) < 0.05 < pub["tau_min"]  # real agreement is far above the noise floor
    assert pub["floor"][2]["shuffled mean"] > 0  # RBO of unrelated rankings is not 0
    assert len(pub["rsa"]) == 3 and all(0 < x["p"] <= 1 for x in pub["rsa"])
    assert sum(pub["mds_explained"]) <= 1 + 1e-9
    assert set(comp["reward_kinds"].values()) == {"LM log-prob (implicit reward)"}
    assert comp["rsa"] == [] and "RSA needs at least 4 models" in md
    assert 3 <= comp["n_items"] <= 300
    assert f"{pub['tau_median']:.2f}" in md and "implicit" in md
    assert n_charts >= 4


def test_method(run):
    r, md, n_charts = run("method")
    assert r["n_tokens"] == 300 and r["best_reward"] >= r["worst_reward"]
    assert r["reward_kinds"] == {"tiny-llama": "LM log-prob (implicit reward)"}
    assert r["best_reward"] <= 0  # a log-probability
    audit = r["audit"][0]
    assert audit["leading BOS, paper mode"] == 2 and audit["leading BOS, id-exact"] == 1
    assert 0 < audit["share changed"] < 1
    demo = r["demo"]
    assert demo["untrained_head"] is True and demo["paper_n_bos_median"] == 2
    assert demo["share_scores_differ"] > 0.5  # the double BOS alone moves every score
    assert "with an untrained head" in md
    assert f"{audit['share changed']:.1%}" in md
    assert n_charts >= 3


def test_distributions_published_and_compute(run, data_ready):
    r, md, n_charts = run("distributions")
    assert r["runs"] == ["published", "compute"]
    moments = [m for m in r["moments"] if m["moment"] == "skewness"]
    assert len(moments) == 3 + 2
    for m in r["moments"]:
        assert m["ci_low"] <= m["estimate"] <= m["ci_high"] or m["moment"] == "kurtosis"
    var = [m for m in r["moments"] if m["moment"] == "variance"]
    assert all(v["estimate"] > 0 for v in var)
    comp = r["composition"]["compute"]
    for model in {c["model"] for c in comp}:
        for tail in ("top", "bottom", "all"):
            shares = [c["share"] for c in comp if c["model"] == model and c["tail"] == tail]
            assert abs(sum(shares) - 1) < 1e-9
    assert {f["feature"] for f in r["features"]} == {"is_word", "leading_space", "capitalised", "n_chars"}
    assert 3 <= r["shared_vocabulary_size"] <= 300
    assert r["skew_summary"]["published"]["n"] == 3
    assert r["skew_summary"]["published"]["n_negative"] + r["skew_summary"]["published"]["n_positive"] <= 3
    sk = max(moments, key=lambda m: abs(m["estimate"]))
    assert f"skewness {sk['estimate']:.2f}" in md
    assert "implicit" in md and n_charts >= 4
