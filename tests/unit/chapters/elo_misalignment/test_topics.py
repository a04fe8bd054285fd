"""rmbook.chapters.elo_misalignment.topics: head nouns, WordNet supersenses and the paper's themes."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.elo_misalignment import topics


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


def test_sexuality_theme_reads_every_title_word_by_wordnet_relations(wn):
    t = topics.item_topics(["Spoons sex position", "Sexual fetishism", "Sex toy", "Nudity in film", "Fingering",
                            "Dog food", "Toy", "Pornographic film", "Sexual intercourse"], wn).set_index("item")
    sx = lambda i: "human sexuality" in t.loc[i, "themes"]
    # the head alone misses these: position (a location), fetishism (its first sense is religious), toy
    assert sx("Spoons sex position") and t.loc["Spoons sex position", "sexuality_word"] == "sex"
    assert sx("Sexual fetishism") and t.loc["Sexual fetishism", "sexuality_word"] == "sexual"  # adjective -> sex
    assert sx("Sex toy") and sx("Pornographic film")
    assert sx("Sexual intercourse") and pd.isna(t.loc["Sexual intercourse", "sexuality_word"])  # by its head
    # WordNet files nakedness under 'condition' and has no sexual sense of 'fingering': they stay out
    assert not sx("Nudity in film") and not sx("Fingering") and not sx("Toy")
    # other themes still go by the head only: dog food is food, not nature
    assert "nature" not in t.loc["Dog food", "themes"]
    assert "title_words" in topics.THEMES["human sexuality"] and not topics.THEMES["nature"].get("title_words")


def _nature_and_plain_words(wn, n_nature=40, n_plain=160):
    """Single WordNet nouns in the nature theme, and nouns with a topic but in no theme."""
    cands = sorted({l.name() for s in wn.synset("animal.n.01").closure(lambda x: x.hyponyms()) for l in s.lemmas()
                    if "_" not in l.name() and l.name().isalpha()})[:400]
    plain = sorted({l.name() for s in wn.synset("container.n.01").closure(lambda x: x.hyponyms())
                    for l in s.lemmas() if "_" not in l.name() and l.name().isalpha()})[:800]
    t = topics.item_topics(cands + plain, wn)
    nat = t[t["themes"].apply(lambda x: "nature" in x)]["item"].tolist()[:n_nature]
    none = t[t["themes"].apply(lambda x: x == []) & t["topic"].notna()]["item"].tolist()[:n_plain]
    assert len(nat) == n_nature and len(none) == n_plain
    return nat, none


def test_a_theme_undervalued_on_one_prompt_and_overvalued_on_another_is_reported_per_prompt(wn):
    """Planted: nature items are the most undervalued under p1 and the least under p2. Pooled, the two cancel; per
    prompt, nature is over-represented on p1 and under-represented on p2."""
    from rmbook.chapters.elo_misalignment import analysis as hr

    nat, plain = _nature_and_plain_words(wn)
    items = nat + plain
    rng = np.random.default_rng(0)
    is_nat = np.isin(items, nat)
    p1 = np.where(is_nat, -100, 0) + rng.normal(0, 10, len(items))
    p2 = np.where(is_nat, 100, 0) + rng.normal(0, 10, len(items))
    human = rng.permutation(len(items)) + 1
    per_prompt = pd.concat([pd.DataFrame({"item": items, "human_rank": human, "rank_diff": d, "prompt_key": k})
                            for k, d in (("p1", p1), ("p2", p2))], ignore_index=True)
    pooled = per_prompt.groupby("item", as_index=False, sort=False).agg(human_rank=("human_rank", "first"),
                                                                         rank_diff=("rank_diff", "mean"))
    pooled["rank_diff"] += rng.normal(0, 10, len(pooled))  # the other models' noise: nature's spread as others
    tp = hr.undervalued_topics(pooled, per_prompt=per_prompt, share=0.1, strata=1, n_resamples=999)
    nature = tp["by_prompt"][tp["by_prompt"]["topic"] == "nature"].set_index("prompt")
    assert nature.loc["p1", "direction"] == "over" and nature.loc["p2", "direction"] == "under"
    assert nature.loc["p1", "n_flagged"] == 20 and nature.loc["p2", "n_flagged"] == 0  # 10% of 200 flagged each
    assert hr.theme_prompts(tp["by_prompt"])["nature"] == {"over": ["p1"], "under": ["p2"]}
    assert tp["enrich"]["theme"].set_index("topic").loc["nature", "direction"] == ""  # pooled: cancelled
    s = hr.topics_summary(tp, share=0.1, strata=1, n_resamples=999)
    rec = [r for r in s["themes_by_prompt"] if r["topic"] == "nature"]
    assert {r["prompt"]: r["direction"] for r in rec} == {"p1": "over", "p2": "under"}
    assert s["theme_prompts"]["nature"]["under"] == ["p2"]
    assert set(rec[0]) >= {"topic", "prompt", "direction", "ratio", "p_fdr", "n_flagged", "expected"}
