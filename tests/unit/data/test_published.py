"""rmlib.data.published: the paper RMs' rewards for dictionary words in the chapters' long shape."""
from __future__ import annotations

import pytest

import rmlib.data as data
from rmbook.chapters.framing import analysis as framing


def test_published_word_scores_cover_both_dictionaries():
    df = data.published_word_scores()
    assert df["model"].nunique() == 10 and df["prompt_key"].nunique() == 54
    assert df["word"].nunique() == 263 + 2040 - 45  # 45 words are in both lists
    assert framing.dictionary_word_counts(df) == {"big2": 263 - 45, "mfd2": 2040 - 45, "both": 45,
                                                  "total": 263 + 2040 - 45}
    assert len(df) == 10 * 54 * df["word"].nunique()
    assert not df.duplicated(["model", "prompt_key", "word"]).any()
    assert (df["level"] == "word").all() and set(df["prompt_valence"]) == {"positive", "negative"}
    # a word in both lists gets the mean of its two published scores
    from rmlib.data import load_dictionary_scores

    both = df[df["dictionary"] == "both"].iloc[0]
    key = dict(model=both.model, prompt_key=both.prompt_key, word=both.word)
    b, m = (load_dictionary_scores(d) for d in ("big2", "mfd2"))
    sel = lambda f: f[(f.model == key["model"]) & (f.prompt_key == key["prompt_key"]) & (f.word == key["word"])]
    assert both.reward == pytest.approx((sel(b).reward.iloc[0] + sel(m).reward.iloc[0]) / 2)
    with pytest.raises(ValueError, match="have no published"):
        data.published_word_scores(models=["org/not-a-paper-rm"])
    with pytest.raises(ValueError, match="prompt keys"):
        data.published_word_scores(prompt_keys=["greatest"])
