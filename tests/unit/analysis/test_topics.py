"""rmlib.analysis.topics: head nouns, WordNet supersenses and the paper's themes."""
from __future__ import annotations

import pandas as pd
import pytest

from rmlib.analysis import topics


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
