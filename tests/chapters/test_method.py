"""The method chapter: a live sweep, the round-trip audit, the id-exact vs paper-mode demo on an untrained head."""
from __future__ import annotations


def test_method(chapter):
    c = chapter("method")
    r, md, n_charts = c.results, c.markdown, c.n_charts
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
