"""WordNet topics for EloEverything items, the theme map, and the permutation test of over-representation."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib import stats
from rmlib.analysis import topics


@pytest.fixture(scope="module")
def wn():
    from rmlib.data import DataError, load_wordnet

    try:
        return load_wordnet()
    except DataError as e:
        pytest.skip(f"data directory not filled: {e}")


def test_wordnet_loads_from_the_data_folder_through_nltk(wn):
    from rmlib import config

    assert wn.get_version() == "3.0"
    assert wn.synsets("dog", pos="n")[0].lexname() == "noun.animal"
    link = config.cache_dir() / "nltk_data" / "corpora" / "wordnet"
    assert link.is_symlink()  # a link to the verified data folder, not a copy or a download


def test_wordnet_missing_data_is_a_clear_error(tmp_path, monkeypatch):
    import rmlib.data
    from rmlib.data import DataError
    from rmlib.data.wordnet import load_wordnet

    monkeypatch.setenv("RMLIB_DATA_DIR", str(tmp_path))
    rmlib.data.clear_caches()
    load_wordnet.cache_clear()
    try:
        with pytest.raises(DataError, match="make data"):
            load_wordnet()
    finally:
        monkeypatch.undo()
        rmlib.data.clear_caches()
        load_wordnet.cache_clear()


@pytest.mark.parametrize("item, head, rule", [
    ("Black hole", "black_hole", "whole title"),
    ("History of art", "history", "before preposition"),
    ("Wood flooring", "flooring", "last word"),
    ("Oz (TV series)", None, "not a WordNet noun"),
    ("Cats", "cats", "single word"),
    ("Xyzzyq", None, "not a WordNet noun"),
])
def test_head_noun_rules(wn, item, head, rule):
    assert topics.head_noun(item, wn) == (head, rule)


def test_item_topics_and_themes(wn):
    t = topics.item_topics(["Dog", "Computer", "Penis", "Tree", "Albert Einstein", "Xyzzyq", "Rain", "Keyboard"], wn)
    t = t.set_index("item")
    assert t.loc["Dog", "topic"] == "noun.animal" and "nature" in t.loc["Dog", "themes"]
    assert t.loc["Computer", "themes"] == ["technology"]
    assert "human sexuality" in t.loc["Penis", "themes"]
    assert {"nature", "life"} <= set(t.loc["Tree", "themes"])
    assert "life" not in t.loc["Albert Einstein", "themes"]  # people are noun.person, not 'life'
    assert t.loc["Rain", "topic"] == "noun.phenomenon" and "nature" in t.loc["Rain", "themes"]
    assert pd.isna(t.loc["Xyzzyq", "topic"]) and t.loc["Xyzzyq", "themes"] == []
    assert "technology" in t.loc["Keyboard", "themes"]
    members = topics.theme_members(t.reset_index())
    assert set(members.columns) == {"item", "theme"} and (members["item"] == "Tree").sum() == 2
    assert set(topics.theme_table()["theme"]) == set(topics.THEMES)


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
