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
