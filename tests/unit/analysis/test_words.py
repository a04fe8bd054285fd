"""rmbook.analysis.words: token rewards mapped to words by the data layer's matching rules."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.analysis.words import tokens_to_words


def test_tokens_to_words_uses_the_data_layer_matching():
    from rmlib.data.tokens import decoded_vocabulary
    from rmlib.models.tiny import tiny_tokenizer

    tok = tiny_tokenizer("llama")
    vocab = decoded_vocabulary(tok)
    # words the tiny BPE spells with a single token, with and without a leading space
    bare = vocab[vocab["bare"].str.fullmatch(r"[a-z]{3,}")]
    words = bare["bare"].drop_duplicates().head(5).tolist()
    assert words, "the tiny tokenizer should have a few whole-word tokens"
    rng = np.random.default_rng(0)
    ts = pd.DataFrame({"model": "m", "prompt_key": "greatest", "prompt_valence": "positive",
                       "token_id": vocab["token_id"], "reward": rng.normal(size=len(vocab))})
    out = tokens_to_words(ts, words + ["zzzznotatoken"], tokenizer_for=lambda m: tok)
    assert set(out["word"]) == set(words)  # the multi-token word is absent, and reported in coverage
    assert out.attrs["coverage"]["m"] == pytest.approx(len(words) / (len(words) + 1))
    for w in words:
        ids = vocab.loc[vocab["bare"].isin([w, w.capitalize(), w.upper()]), "token_id"]
        row = out.set_index("word").loc[w]
        assert row["n_variants"] == len(ids)
        assert row["reward"] == pytest.approx(ts.set_index("token_id").loc[ids, "reward"].mean())
