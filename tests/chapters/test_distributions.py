"""The distributions chapter in both modes: moments with CIs, tail composition, shared vocabulary, and the sections
its sentences are rendered from."""
from __future__ import annotations


def test_distributions_published_and_compute(chapter, data_ready):
    c = chapter("distributions")
    r, md, n_charts = c.results, c.markdown, c.n_charts
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
    assert r["shape"]["most_asymmetric"]["model"] == sk["model"] and r["shape"]["skew"]["n"] == 3 + 2
    assert f"skewness {sk['estimate']:.2f}" in md  # the sentence states the section
    assert r["answer_sets"]["published"]["n_models"] == 3 and r["answer_sets"]["compute"]["n_lm"] == 2
    assert "2 are LMs whose reward is the log-probability" in md
    assert [m["model"] for m in r["tails"]["compute"]["models"]] == r["answer_sets"]["compute"]["models"]
    assert r["word_share"]["computed"] and len(r["word_share"]["models"]) == 2
    assert "implicit" in md and n_charts >= 4
