"""The longer_answers chapter on tiny models: GCG optima and pessima against the one-token sweep, an absent model
named plainly, published length-vs-reward, and the computed prose."""
from __future__ import annotations


def test_longer_answers_compute_and_published(chapter, data_ready):
    c = chapter("longer_answers")
    r, md = c.results, c.markdown
    assert r["mode"] == "both"
    search = r["search"]
    assert search["models"] == ["tiny-llama", "tiny-qwen2"] and search["lengths"] == [1, 2, 4]
    assert list(search["absent"]) == ["local:no-such-rm"] and "no trained RM" in search["absent"]["local:no-such-rm"]
    assert "1 of the 3 models in `MODELS` is absent" in md and "local:no-such-rm" in md
    cmp = r["comparison"]["table"]
    # 2 models x 2 prompts x 3 lengths x 2 directions, each with its restarts
    assert len(cmp) == 2 * 2 * 3 * 2 and all(x["n_restarts"] == 2 for x in cmp)
    for x in cmp:
        assert 0 <= x["n_beyond"] <= x["n_contains_topk"] + x["n_restarts"]
        assert x["n_contains_top1"] <= x["n_contains_topk"] <= x["n_restarts"]
        if x["length"] == 1:  # a one-token optimum can never be beyond the exhaustive sweep's extreme
            assert x["n_beyond"] == 0
            if x["direction"] == "max":
                assert x["best"] <= x["one_token_extreme"] + 1e-4
            else:
                assert x["best"] >= x["one_token_extreme"] - 1e-4
    n = sum(x["n_restarts"] for x in cmp if x["length"] > 1 and x["direction"] == "max")
    beyond = sum(x["n_beyond"] for x in cmp if x["length"] > 1 and x["direction"] == "max")
    assert f"Of {n} restarts" in md and f"{beyond} ({beyond / n:.0%})" in md
    optima = r["comparison"]["directions"][0]  # the sentence states the section
    assert (optima["direction"], optima["n_restarts"], optima["n_beyond"]) == ("max", n, beyond)
    assert r["comparison"]["any_lm"] and "summed* log-probability" in md
    sharing = r["sharing"]
    assert {s["direction"] for s in sharing["table"]} == {"max", "min"} and sharing["any_multi"]
    assert all(0 <= s["overlap"] <= 1 + 1e-9 for s in sharing["table"])
    low = sharing["directions"][0]
    assert f"ranges from {low['overlap_min']:.2f} to {low['overlap_max']:.2f}" in md
    pub = r["published"]
    assert len(pub["table"]) == 3 * 3 and pub["n_pairs"] == 9 and "Spearman" in md
    assert f"in {pub['n_longer_more']} of these pairs the RM rewards longer answers more" in md
    assert c.n_charts >= 4  # convergence per model x prompt


def test_longer_answers_published_only_needs_no_model(chapter, data_ready):
    c = chapter.tiny("longer_answers", MODE="published")
    assert c.results["search"]["models"] == [] and "Compute mode is off" in c.markdown
    assert c.results["comparison"]["table"] == [] and not c.results["sharing"]["any_multi"]
