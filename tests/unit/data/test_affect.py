"""rmlib.data.affect: valence centred per lexicon, the missing-word policy, extremeness within a lexicon."""
from __future__ import annotations

import numpy as np
import pytest

import rmlib.data as data


def test_affect_tables_are_centred_on_zero():
    afinn, vader, warriner = (data.affect_table(s) for s in ("afinn", "vader", "warriner"))
    assert afinn["valence"].between(-5, 5).all() and afinn["word"].is_unique
    assert vader["valence"].between(-4, 4).all()
    assert warriner["valence"].between(-4, 4).all()  # 1..9 minus the neutral 5
    assert afinn.set_index("word").loc["love", "valence"] > 0 > afinn.set_index("word").loc["hate", "valence"]
    with pytest.raises(ValueError, match="affect source"):
        data.affect_table("liwc")


def test_word_affect_missing_policy():
    words = ["LOVE", "aardvarkish", "hate"]
    nan = data.word_affect(words, "afinn", missing="nan")
    zero = data.word_affect(words, "afinn", missing="zero")
    assert nan[0] > 0 and np.isnan(nan[1]) and nan[2] < 0
    assert zero[1] == 0.0 and zero[0] == nan[0]
    with pytest.raises(ValueError, match="missing"):
        data.word_affect(words, missing="drop")


def test_valence_extremeness_reads_each_lexicon_on_its_own_scale():
    e = data.valence_extremeness(["torture", "slut", "awesome", "qzxqzxq"]).set_index("word")
    assert e.loc["slut", "afinn"] == -5 and e.loc["slut", "afinn_extreme"] == 0  # AFINN's most negative value
    assert e.loc["torture", "warriner_extreme"] < e.loc["slut", "warriner_extreme"]  # Warriner: torture is worse
    assert 0 <= e.loc["awesome", "vader_extreme"] < 0.1
    assert np.isnan(e.loc["qzxqzxq", "afinn"]) and np.isnan(e.loc["qzxqzxq", "afinn_extreme"])
