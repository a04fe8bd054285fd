"""The reward split into each block's direct contribution sums to the model's own score (float32, within 1e-4), for
every tiny architecture, as an RM (explicit) and as an LM (implicit: the answer tokens' logits); the reward lens ends
at the score; each layer's attention heads sum to its attention block's part."""
import numpy as np
import pytest
import torch

from rmlib.lens.attribution import batch, decompose, lm_readout, rm_readout
from rmlib.lens.blocks import LensError, component_names
from rmlib.lens.heads import head_parts
from rmlib.lens.inputs import conversation_ids, prompt_ids, single_tokens
from rmlib.models.templates import chat_template_of
from rmlib.models.tiny import tiny_model

FAMILIES = ["llama", "gemma2", "gemma3", "qwen2"]


def _conversations(tok):
    answers = [[i] for i in tok(" answer thing word", add_special_tokens=False).input_ids] + [" the one"]
    return conversation_ids(tok, chat_template_of(tok), "What is the best thing?", answers)


@pytest.mark.parametrize("family", FAMILIES)
def test_an_rms_parts_sum_to_its_score_and_the_lens_ends_there(family):
    model, tok = tiny_model(family, "rm")
    seqs = _conversations(tok)
    assert len({len(s) for s in seqs}) == 2  # rows of two lengths: the padding is part of the check
    d = decompose(model, *batch(seqs, tok.pad_token_id), rm_readout(model))
    assert d.parts.shape == (4, 5, 1) and d.components == component_names(model)
    assert np.abs(d.total - d.model_score).max() < 1e-4
    assert np.abs(d.lens[:, -1] - d.model_score).max() < 1e-4
    assert np.abs(d.lens_renormed[:, -1] - d.model_score).max() < 1e-4
    assert np.ptp(d.model_score) > 1e-3  # the rows differ: a constant score would pass the sums trivially
    frame = d.frame()
    assert len(frame) == 20 and set(frame["kind"]) == {"embed", "attn", "mlp"}


@pytest.mark.parametrize("family", FAMILIES)
def test_an_lms_logits_of_many_tokens_split_in_one_pass(family):
    model, tok = tiny_model(family, "lm")
    prefix = prompt_ids(tok, chat_template_of(tok), "What is the best thing?")
    vocab = list(range(len(tok)))
    d = decompose(model, *batch([prefix], tok.pad_token_id), lm_readout(model, vocab), token_ids=vocab)
    assert d.parts.shape == (1, 5, len(tok))
    capped = d.total if d.softcap is None else np.tanh(d.total / d.softcap) * d.softcap
    assert np.abs(capped - d.model_score).max() < 1e-4
    assert (d.softcap is not None) == (family == "gemma2")  # Gemma-2 caps its logits: the parts sum before the cap


def test_the_sum_check_would_catch_a_missing_block():
    model, tok = tiny_model("llama", "rm")
    d = decompose(model, *batch(_conversations(tok), tok.pad_token_id), rm_readout(model))
    without_last = d.parts[:, :-1].sum(1) + d.bias
    assert np.abs(without_last - d.model_score).max() > 1e-3


def test_what_the_lens_cannot_read_is_refused():
    lm, tok = tiny_model("llama", "lm")
    with pytest.raises(LensError, match="score"):
        rm_readout(lm)
    with pytest.raises(LensError, match="token ids"):
        lm_readout(lm, [len(tok) + 5])
    with pytest.raises(LensError, match="token_ids"):
        decompose(lm, *batch([[1, 2, 3]], tok.pad_token_id), lm_readout(lm, [4]))
    with pytest.raises(LensError, match="non-empty"):
        batch([[1], []], 0)
    with pytest.raises(LensError, match="decoder"):
        decompose(torch.nn.Linear(2, 2), *batch([[1]], 0), lm_readout(lm, [4]))


def test_single_tokens_splits_whole_words_from_split_ones():
    _, tok = tiny_model("llama", "lm")
    kept, split = single_tokens(tok, [" answer", " thing", "communion"])
    assert list(kept) == [" answer", " thing"] and split == ["communion"]
    assert kept[" answer"] == tok(" answer", add_special_tokens=False).input_ids[0]


@pytest.mark.parametrize("family", FAMILIES)
def test_each_layers_heads_sum_to_its_attention_blocks_part(family):
    model, tok = tiny_model(family, "rm")
    inputs = batch(_conversations(tok), tok.pad_token_id)
    d = decompose(model, *inputs, rm_readout(model))
    heads = head_parts(model, *inputs, rm_readout(model))
    assert heads.shape == (4, 2, 4, 1)
    attn = d.parts[:, [d.components.index(f"L{i}.attn") for i in range(2)]]
    assert np.abs(heads.sum(2) - attn).max() < 1e-4
    assert np.abs(heads).max() > 10 * np.abs(heads.sum(2) - attn).max()  # the heads' parts are not all ~0
