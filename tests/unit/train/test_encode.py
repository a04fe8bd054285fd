"""rmlib.train.encode and pairs: truncation keeps the end; the data do not depend on the tokenizer."""
from __future__ import annotations

import pytest

from rmlib.models.tiny import tiny_tokenizer
from rmlib.train import PairEncoder, TrainConfig, TrainConfigError, data_hash, prepare, train


def cfg(name, base="tiny-llama", **kw):
    base_kw = dict(sources=["synthetic_marker"], n_pairs=48, n_test=24, steps=16, batch_size=8, lr=2e-3,
                   max_len=96, tuning="full", save_every=8, dtype="float32", save_dtype="float32")
    return TrainConfig(name=name, base=base, **{**base_kw, **kw})


def test_truncation_keeps_the_end_of_response_and_prompt():
    tok = tiny_tokenizer("llama")
    from rmlib.models.templates import answer_slot
    template = tok.chat_template
    enc = PairEncoder(tok, template, max_len=40)
    long = " ".join(["hope joy music"] * 20) + " final word"
    (ids, short_ids), cut = enc.encode("What is the best thing?", [long, "peace"])
    assert cut and len(ids) <= 40
    tail = tok(long, add_special_tokens=False).input_ids
    slot = answer_slot(tok, "What is the best thing?", template)
    kept = ids[len(slot.prefix_ids):len(ids) - len(slot.suffix_ids)]
    assert kept == tail[-len(kept):] and len(kept) < len(tail)
    assert short_ids == slot.ids_for(tok("peace", add_special_tokens=False).input_ids)
    # a prompt too long for the budget keeps its end (the latest turn) and leaves the response room
    long_prompt = "Hello. " * 40 + "What is the greatest thing ever?"
    (ids2,), cut2 = enc.encode(long_prompt, ["peace"])
    assert cut2 and len(ids2) <= 40 and tok.decode(ids2).count("greatest thing ever?") == 1
    with pytest.raises(TrainConfigError, match="shorter than the chat template"):
        PairEncoder(tok, template, max_len=8)


def test_data_is_tokenizer_independent():
    c = cfg("prep-check", n_pairs=20)
    a, b = prepare(c), prepare(cfg("prep-check", base="tiny-gemma3", n_pairs=20))
    assert data_hash(a["train"]) == data_hash(b["train"]) and a["steps"] == b["steps"]
    assert all(len(x) <= 96 for x in a["train"]["chosen_ids"]) and all(len(x) <= 96 for x in b["train"]["chosen_ids"])
