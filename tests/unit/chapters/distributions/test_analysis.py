"""rmbook.chapters.distributions.analysis: tail composition with Wilson intervals, shared vocabularies across
tokenizers."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.analysis import categories
from rmbook.chapters.distributions import analysis as distributions


def test_tail_composition_planted():
    # Top scores are all words, bottom scores all punctuation, the middle is mixed.
    n = 300
    cat = np.array(["word"] * 100 + ["number"] * 100 + ["punctuation"] * 100)
    score = np.r_[np.linspace(10, 5, 100), np.linspace(4.9, -4.9, 100), np.linspace(-5, -10, 100)]
    df = pd.DataFrame({"reward": score, "category": pd.Categorical(cat, categories=list(categories.CATEGORIES))})
    comp = distributions.tail_composition(df, k=50).set_index(["tail", "value"])
    assert comp.loc[("top", "word"), "share"] == 1.0
    assert comp.loc[("bottom", "punctuation"), "share"] == 1.0
    assert comp.loc[("all", "word"), "share"] == pytest.approx(1 / 3)
    assert comp.loc[("top", "word"), "lift"] == pytest.approx(3.0)
    lo, hi = comp.loc[("top", "word"), ["ci_low", "ci_high"]]
    assert 0.9 < lo < 1.0 and hi == pytest.approx(1.0)
    assert comp.groupby("tail")["share"].sum().round(9).eq(1).all()
    with pytest.raises(ValueError, match="fewer than 2k"):
        distributions.tail_composition(df, k=200)


def test_shared_vocabulary_aligns_on_text():
    a = pd.DataFrame({"model": "A", "text": [" love", "war", "\ufffd", "x", "y", "<s>"],
                      "reward": [1.0, 2.0, 9.0, 3.0, 4.0, 7.0], "is_special": [False] * 5 + [True]})
    b = pd.DataFrame({"model": "B", "text": [" love", " love", "war", "\ufffd", "x", "y", "z"],
                      "reward": [10.0, 12.0, 20.0, 90.0, 30.0, 40.0, 50.0], "is_special": [False] * 7})
    frame = pd.concat([a, b])
    w = distributions.shared_vocabulary(frame)
    assert list(w.columns) == ["A", "B"]
    assert set(w.index) == {" love", "war", "x", "y"}  # byte fragment, special and unshared texts dropped
    assert w.loc[" love", "B"] == 12.0  # duplicates combined with max
    assert distributions.shared_vocabulary(frame, agg="mean").loc[" love", "B"] == 11.0
    loose = distributions.shared_vocabulary(frame.assign(text=frame["text"].replace("war", " War")), normalise=True)
    assert "war" in loose.index and "love" in loose.index
    ov = distributions.vocabulary_overlap(frame, w).set_index("model")
    assert ov.loc["A", "n_shared"] == 4 and ov.loc["B", "n_distinct_texts"] == 5
    with pytest.raises(ValueError, match="at least 2 models"):
        distributions.shared_vocabulary(a)
    with pytest.raises(ValueError, match="agg must be"):
        distributions.shared_vocabulary(frame, agg="median")
