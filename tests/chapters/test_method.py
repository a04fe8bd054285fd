"""The method chapter: a live sweep, the round-trip audit, the id-exact vs paper-mode demo on an untrained head."""
from __future__ import annotations


def test_method(chapter):
    c = chapter("method")
    r, md, n_charts = c.results, c.markdown, c.n_charts
    e = r["extremes"]
    assert e["n_tokens"] == 300 and e["best_reward"] >= e["worst_reward"]
    assert r["reward_kinds"] == {"tiny-llama": "LM log-prob (implicit reward)"}
    assert e["best_reward"] <= 0 and 0 < e["p_best"] <= e["top_mass"] <= 1  # a log-probability
    audit = r["roundtrip"]["table"][0]
    assert audit["leading BOS, paper mode"] == 2 and audit["leading BOS, id-exact"] == 1
    assert 0 < audit["share changed"] < 1
    demo = r["demo"]
    assert demo["untrained_head"] is True and demo["paper_n_bos_median"] == 2
    assert demo["share_scores_differ"] > 0.5  # the double BOS alone moves every score
    assert "with an untrained head" in md and f"together {e['top_mass']:.1%}" in md  # the sentence states the section
    assert f"{audit['share changed']:.1%}" in md
    assert n_charts >= 3
