"""The reward lens on the three embedded models (#65: "for every architecture in the registry's tiny models and the
embedded ones"): in float32 each block's direct part of an LM's implicit reward (the logits of a few answer tokens
after the prompt) sums to the model's own logit within 1e-4 of its size. An RM's readout differs only in its linear
head, checked on every tiny family in tests/unit/lens/test_attribution.py.

SmolLM2 is read whole with its real weights (the session's float32 copy). Gemma-3 and Qwen2.5-Coder are built from
their GGUF's own configuration (every field but the depth, cut to two layers) with random weights: the parts' sum is
arithmetic that holds for any weights, and nothing else in the suite loads these two, whose first float32 load from
the GGUF cost 56 and 54 s in a clean clone (AMX Xeon, 2026-12-07) and took `make test` past 15 minutes."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import transformers

from rmlib.lens.attribution import batch, decompose, lm_readout
from rmlib.lens.inputs import prompt_ids
from rmlib.models.embedded import gguf_location
from rmlib.registry import get_spec

PROMPT = "What, in one word, is the greatest thing ever?"


def _check_sum(model, prefix: list[int], tokens: list[int], pad_id: int) -> None:
    d = decompose(model, *batch([prefix], pad_id), lm_readout(model, tokens), token_ids=tokens)
    capped = d.total if d.softcap is None else np.tanh(d.total / d.softcap) * d.softcap
    assert np.abs(capped - d.model_score).max() < 1e-4 * max(1.0, float(np.abs(d.model_score).max()))
    assert np.ptp(d.model_score) > 1e-4  # the answers' logits differ: a constant would pass the sum trivially
    assert d.parts.shape[1] == 1 + 2 * model.config.num_hidden_layers  # the embedding and every block


def test_smollm2s_parts_sum_to_its_logits_in_float32(smollm2_lm):
    tok = smollm2_lm.tokenizer
    words = [tok(f" {w}", add_special_tokens=False).input_ids for w in ("love", "freedom", "power", "family", "art")]
    tokens = [w[0] for w in words if len(w) == 1]
    assert len(tokens) >= 2, "too few one-token answers to check"
    _check_sum(smollm2_lm.model, prompt_ids(tok, smollm2_lm.chat_template, PROMPT), tokens, tok.pad_token_id)


@pytest.mark.parametrize("model_id", ["gemma3-270m", "qwen2.5-coder-0.5b-instruct"])
def test_an_embedded_architectures_parts_sum_to_its_logits_in_float32(model_id):
    folder, gguf_file = gguf_location(get_spec(model_id))
    config = transformers.AutoConfig.from_pretrained(str(folder), gguf_file=gguf_file)
    config.num_hidden_layers = 2
    if getattr(config, "layer_types", None):
        config.layer_types = config.layer_types[:2]
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config, torch_dtype=torch.float32).eval()
    ids = torch.randint(0, config.vocab_size, (12,), generator=torch.Generator().manual_seed(0)).tolist()
    _check_sum(model, ids, [3, 17, 1000, 20000], pad_id=0)
