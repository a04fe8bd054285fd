"""rmbook.analysis.values: the score tables of a value chapter, their overview, and where named words rank."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.analysis import values as vp


def _scores(ranks_by_model: dict[str, dict[str, float]], prompt_key="greatest_ever_one") -> pd.DataFrame:
    rows = [(m, m.upper(), "Gemma" if m.startswith("g") else "Llama", prompt_key, w, r)
            for m, words in ranks_by_model.items() for w, r in words.items()]
    return pd.DataFrame(rows, columns=["model", "nickname", "family", "prompt_key", "word", "reward"])


def test_word_pair_table_puts_two_words_side_by_side_and_names_the_one_ranked_higher():
    scores = _scores({"g1": {"love": 3.0, "freedom": 1.0, "x": 2.0}, "l1": {"love": 0.0, "freedom": 5.0, "x": 1.0}})
    ranks = vp.word_ranks(scores, ["love", "freedom"])
    assert set(ranks["n_words"]) == {3}
    pair = vp.word_pair_table(ranks, "love", "freedom").set_index("nickname")
    assert pair.loc["G1", "love"] == 1 and pair.loc["G1", "first"] == "love"
    assert pair.loc["L1", "freedom"] == 1 and pair.loc["L1", "first"] == "freedom"
    assert vp.word_pair_table(vp.word_ranks(scores, ["love"]), "love", "freedom") is None


def test_tables_overview_and_nicknames():
    t = _scores({"g1": {"a": 1.0, "b": 2.0}}).assign(reward_kind="RM score")
    u = _scores({"g1": {"a": 1.0}, "l1": {"a": 1.0}}).assign(reward_kind="RM score", nickname="other")
    over = vp.tables_overview({"published": t, "compute": u})
    assert over[["scores", "model", "words"]].values.tolist() == [["published", "g1", 2], ["compute", "g1", 1],
                                                                 ["compute", "l1", 1]]
    assert vp.nicknames({"published": t, "compute": u}).to_dict() == {"g1": "G1", "l1": "other"}


def test_value_tables_published_mode_samples_words_per_category(data_ready):
    kw = dict(words_per_category=3, published_models=["Ray2333/GRM-gemma2-2B-rewardmodel-ft"],
              prompt_keys=["best_ever_one", "worst_ever_one"])
    tables = vp.value_tables("big2", seed=0, **kw)
    assert set(tables) == {"published"}
    t = tables["published"]
    assert t.groupby("category")["word"].nunique().eq(3).all() and t["model"].nunique() == 1
    assert sorted(vp.value_tables("big2", seed=0, **kw)["published"]["word"]) == sorted(t["word"])  # seeded
    assert set(vp.value_tables("big2", seed=1, **kw)["published"]["word"]) != set(t["word"])
    with pytest.raises(ValueError, match="mode"):
        vp.value_tables("big2", mode="both")
