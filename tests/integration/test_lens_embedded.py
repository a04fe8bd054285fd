"""The reward lens on the three embedded models (#65: "for every architecture in the registry's tiny models and the
embedded ones"): in float32 each block's direct part of an LM's implicit reward (the logits of a few one-token
answers after the prompt) sums to the model's own logit within 1e-4 of its size. An RM's readout differs only in its
linear head, checked on every tiny family in tests/unit/lens/test_attribution.py.

SmolLM2 runs in every `make test` (the session's float32 copy, free). Gemma-3 and Qwen2.5-Coder are not loaded
anywhere else in the suite: their first float32 load from the GGUF cost 56 and 54 s in a clean clone's CI (AMX Xeon,
2026-12-07), which took `make test` past its 15 minutes; they run with RMLIB_TEST_ALL_EMBEDDED=1 (12 s in all with
a warm cache)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from rmlib import models
from rmlib.lens.attribution import batch, decompose, lm_readout
from rmlib.lens.inputs import prompt_ids

ALL = os.environ.get("RMLIB_TEST_ALL_EMBEDDED") == "1"
LATER = pytest.mark.skipif(not ALL, reason="their first float32 load costs about a minute each: "
                                           "RMLIB_TEST_ALL_EMBEDDED=1 runs them")
EMBEDDED = ["smollm2-135m-instruct", pytest.param("gemma3-270m", marks=LATER),
            pytest.param("qwen2.5-coder-0.5b-instruct", marks=LATER)]
PROMPT = "What, in one word, is the greatest thing ever?"


@pytest.mark.parametrize("model_id", EMBEDDED)
def test_an_embedded_lms_parts_sum_to_its_logits_in_float32(model_id, request):
    lm = request.getfixturevalue("smollm2_lm") if model_id.startswith("smollm2") else \
        models.load_model(model_id, head="lm", dtype="float32")
    tok = lm.tokenizer
    words = [tok(f" {w}", add_special_tokens=False).input_ids for w in ("love", "freedom", "power", "family", "art")]
    tokens = [w[0] for w in words if len(w) == 1]
    assert len(tokens) >= 2, "too few one-token answers to check"
    prefix = prompt_ids(tok, lm.chat_template, PROMPT)
    d = decompose(lm.model, *batch([prefix], tok.pad_token_id), lm_readout(lm.model, tokens), token_ids=tokens)
    capped = d.total if d.softcap is None else np.tanh(d.total / d.softcap) * d.softcap
    assert np.abs(capped - d.model_score).max() < 1e-4 * max(1.0, float(np.abs(d.model_score).max()))
    assert np.ptp(d.model_score) > 1e-3  # the answers' logits differ: a constant would pass the sum trivially
    assert d.parts.shape[1] == 1 + 2 * lm.model.config.num_hidden_layers  # the embedding and every block
