"""rmlib.stats.enrichment: a planted over-representation is found, a null is not, strata remove a confound."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib import stats


def _labels(n_items=600, seed=0):
    rng = np.random.default_rng(seed)
    items = [f"i{k}" for k in range(n_items)]
    topic = rng.choice(["a", "b", "c", "d"], size=n_items)
    return pd.DataFrame({"item": items, "topic": topic})


def test_a_planted_over_representation_is_found():
    lab = _labels()
    rng = np.random.default_rng(1)
    a_items = lab.loc[lab["topic"] == "a", "item"].tolist()
    others = lab.loc[lab["topic"] != "a", "item"].tolist()
    flagged = rng.choice(a_items, 40, replace=False).tolist() + rng.choice(others, 20, replace=False).tolist()
    res = stats.topic_enrichment(lab, flagged, n_resamples=999).set_index("topic")
    assert res.loc["a", "direction"] == "over" and res.loc["a", "p_fdr"] < 0.01 and res.loc["a", "ratio"] > 2
    assert (res.drop(index="a")["direction"] == "under").sum() >= 1  # the others are correspondingly fewer
    assert res["n_flagged"].sum() == 60 and res["expected"].sum() == pytest.approx(60, rel=0.02)


def test_no_planted_effect_no_finding():
    lab = _labels(seed=2)
    flagged = lab.sample(60, random_state=3)["item"]
    res = stats.topic_enrichment(lab, flagged, n_resamples=999)
    assert (res["direction"] == "").all() and (res["p"] > 0).all()


def test_strata_remove_a_confound_with_the_human_rank():
    # topic 'a' items sit high in the human ranking, and only highly ranked items are flagged (they alone have room
    # to be undervalued): unstratified, 'a' looks over-represented; within rank bins it is not
    rng = np.random.default_rng(4)
    n = 1000
    rank = pd.Series(np.arange(n), index=[f"i{k}" for k in range(n)])
    topic = np.where(rng.random(n) < np.where(rank.to_numpy() < 300, 0.6, 0.1), "a", "b")
    lab = pd.DataFrame({"item": rank.index, "topic": topic})
    flagged = rank.index[(rank.to_numpy() < 300) & (rng.random(n) < 0.3)]
    plain = stats.topic_enrichment(lab, flagged, n_resamples=999).set_index("topic")
    strat = stats.topic_enrichment(lab, flagged, strata=stats.rank_strata(rank, 10), n_resamples=999).set_index("topic")
    assert plain.loc["a", "direction"] == "over"
    assert strat.loc["a", "direction"] == "" and abs(strat.loc["a", "ratio"] - 1) < 0.2


def test_universe_counts_items_without_a_label_as_non_members():
    lab = pd.DataFrame({"item": ["x", "y"], "topic": ["t", "t"]})
    res = stats.topic_enrichment(lab, ["x"], universe=["x", "y", "z", "w"], n_resamples=99)
    assert res.loc[0, "n_items"] == 2 and res.loc[0, "expected"] == pytest.approx(0.5, abs=0.15)
    with pytest.raises(ValueError, match="not in the universe"):
        stats.topic_enrichment(lab, ["x"], universe=["x"], n_resamples=9)
    with pytest.raises(ValueError, match="no flagged item"):
        stats.topic_enrichment(lab, ["q"], n_resamples=9)


def test_opposite_effects_in_two_sets_are_reported_per_set_not_cancelled():
    """Topic a is over-represented among set p1's flagged items and absent from set p2's: pooled, the two cancel to
    about the base rate; per set, each is found, with one FDR over topics x sets."""
    from rmlib.stats.enrichment import topic_enrichment_by

    lab = _labels()
    rng = np.random.default_rng(2)
    a_items = lab.loc[lab["topic"] == "a", "item"].tolist()
    others = lab.loc[lab["topic"] != "a", "item"].tolist()
    share_a = len(a_items) / len(lab)
    n = 60
    k = int(round(2 * share_a * n))  # twice a's share in p1, none in p2: the pooled count is a's share
    p1 = rng.choice(a_items, k, replace=False).tolist() + rng.choice(others, n - k, replace=False).tolist()
    p2 = rng.choice(others, n, replace=False).tolist()
    pooled = stats.topic_enrichment(lab, p1 + p2, n_resamples=999).set_index("topic")
    assert pooled.loc["a", "direction"] == "" and pooled.loc["a", "ratio"] == pytest.approx(1, abs=0.2)
    by = topic_enrichment_by(lab, {"p1": p1, "p2": p2}, group="prompt", n_resamples=999)
    assert len(by) == 8 and list(by["prompt"].unique()) == ["p1", "p2"]
    a = by[by["topic"] == "a"].set_index("prompt")
    assert a.loc["p1", "direction"] == "over" and a.loc["p2", "direction"] == "under"
    assert a.loc["p2", "n_flagged"] == 0 and a.loc["p1", "ratio"] > 1.5
    from statsmodels.stats.multitest import multipletests
    assert np.allclose(by["p_fdr"], multipletests(by["p"], method="fdr_bh")[1])  # one family: topics x sets
    assert not np.allclose(by["p_fdr"], by["p_fdr_within"])
    with pytest.raises(ValueError, match="no set"):
        topic_enrichment_by(lab, {})


def test_each_monte_carlo_p_carries_its_standard_error():
    """#63 item 7: the themes' Monte Carlo p (9,999 resamples) had no standard error, so no straddle check."""
    lab = _labels()
    flagged = lab["item"].iloc[:50].tolist()
    res = stats.topic_enrichment(lab, flagged, n_resamples=999)
    one_sided = np.minimum(res["p_over"], res["p_under"])
    assert np.allclose(res["p_se"], 2 * np.sqrt(one_sided * (1 - one_sided) / 999))
    assert np.allclose(res["p_fdr_se"], res["p_se"] * res["p_fdr"] / res["p"])
    from rmlib.stats.enrichment import topic_enrichment_by

    by = topic_enrichment_by(lab, {"p1": flagged, "p2": lab["item"].iloc[50:90].tolist()}, n_resamples=99)
    assert np.allclose(by["p_fdr_se"], by["p_se"] * by["p_fdr"] / by["p"])
