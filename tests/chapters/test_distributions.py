"""The distributions chapter in both modes: moments with CIs, tail composition, shared vocabulary."""
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
    assert f"skewness {sk['estimate']:.2f}" in md
    assert "implicit" in md and n_charts >= 4
