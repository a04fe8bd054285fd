"""Token <-> word matching and LIWC wildcard expansion on a real embedded tokenizer (SmolLM2-135M GGUF)."""
from __future__ import annotations

import pytest

from rmlib.data.tokens import decoded_vocabulary
import rmlib.data as D


pytestmark = pytest.mark.embedded


@pytest.fixture(scope="module")
def vocab(smollm2_tokenizer):
    return decoded_vocabulary(smollm2_tokenizer)


def test_decoded_vocabulary(smollm2_tokenizer, vocab):
    assert len(vocab) == len(smollm2_tokenizer)
    space_id = smollm2_tokenizer.encode(" hello", add_special_tokens=False)
    assert len(space_id) == 1
    row = vocab.set_index("token_id").loc[space_id[0]]
    assert row["text"] == " hello" and row["leading_space"] and row["bare"] == "hello"


def test_match_words_to_tokens_rules(smollm2_tokenizer, vocab):
    tok = smollm2_tokenizer
    res = D.match_words_to_tokens(tok, ["accuracy", "eagerness", "Hello", "accuracy"], vocabulary=vocab)
    assert res.coverage["n_words"] == 3  # duplicates reported once
    acc = res.words.set_index("word").loc["accuracy"]
    bare, spaced = tok.encode("accuracy", add_special_tokens=False), tok.encode(" accuracy", add_special_tokens=False)
    assert len(bare) == len(spaced) == 1
    assert set(bare + spaced) <= set(acc["token_ids"]) and not acc["multi_token"]
    # every matched token really decodes to a case variant of the word, with at most one leading space
    for _, m in res.matches.iterrows():
        assert tok.decode([m["token_id"]]).removeprefix(" ").lower() == m["word"].lower()
    # case variants: 'Hello' also matches 'hello' / ' hello'
    hello_ids = set(res.words.set_index("word").loc["Hello", "token_ids"])
    assert set(tok.encode(" hello", add_special_tokens=False)) <= hello_ids
    strict = D.match_words_to_tokens(tok, ["Hello"], case_insensitive=False, vocabulary=vocab)
    assert set(strict.words["token_ids"].iloc[0]) < hello_ids
    # a multi-token word is flagged with its encodings, not dropped
    eag = res.words.set_index("word").loc["eagerness"]
    assert eag["multi_token"] and eag["n_tokens"] == 0
    assert eag["ids_space"] == tok.encode(" eagerness", add_special_tokens=False) and len(eag["ids_space"]) > 1
    assert res.multi_token_words == ["eagerness"]
    assert res.coverage["n_single_token"] + res.coverage["n_multi_token"] == 3
    with pytest.raises(ValueError, match="empty"):
        D.match_words_to_tokens(tok, ["ok", " "], vocabulary=vocab)


def test_big_two_coverage_report(smollm2_tokenizer, vocab, data_dir):
    nouns = D.load_big_two("nouns")["word"]
    res = D.match_words_to_tokens(smollm2_tokenizer, nouns, vocabulary=vocab)
    cov = res.coverage
    assert cov["n_words"] == 263 == len(res.words)
    assert cov["n_single_token"] == (~res.words["multi_token"]).sum()
    assert 0.3 < cov["coverage"] < 1.0  # a 49k vocabulary spells many but not all of these nouns in one token
    assert set(res.multi_token_words) | set(res.matches["word"]) == set(nouns)


def test_wildcard_expansion_against_tokenizer_vocabulary(vocab, data_dir):
    patterns = D.load_pietraszkiewicz("a")
    out = D.expand_wildcards(patterns["pattern"], vocab["text"])
    assert len(out) > 0
    stems = {p: p.lower().rstrip("*") for p in patterns["pattern"]}
    for p, w in zip(out["pattern"], out["word"]):
        assert w.startswith(stems[p]) if p.endswith("*") else w == stems[p]
    got = set(out.loc[out.pattern == "achiev*", "word"])
    assert {"achieve", "achieved"} <= got and "ache" not in got
    # matched entries are raw decoded tokens, e.g. both 'achieve' and ' achieve' if the vocabulary has both
    entries = set(out.loc[out.pattern == "achiev*", "entry"])
    assert " achieve" in entries
