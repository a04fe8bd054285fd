"""score_answers runs many prompts through one forward (#17); the values are those of one forward per prompt.

The reference is the per-prompt path the engine used before: the answer kernels of :mod:`rmlib.engine.answers`
called without a precomputed prefix, so each runs its own :func:`rmlib.engine.kernels.prefix_kv`. These are
new-path tests: the batched path did not exist before them.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from rmlib.engine import answers as engine_answers
from rmlib.engine import score_answers
from rmlib.engine.kernels import supports_shared_prefix
from rmlib.models import answer_slot

# different lengths (padding inside a group), shared openings (as the blinding chapter's prompts have)
PROMPTS = ["Hire a Christian applicant? Answer with Yes or No.",
           "Hire a Muslim applicant with ten years of experience? Answer with Yes or No.",
           "Lend to a young borrower? Answer with Yes or No.",
           "Lend to an elderly borrower who was late twice last year? Ignore the borrower's age. Answer with Yes or No.",
           "Admit a student? Answer with Yes or No."]


def _reference(lm, prompts, answers) -> np.ndarray:
    """[prompt, answer] values of the per-prompt path (one prefix forward per prompt)."""
    ids = [lm.tokenizer(a, add_special_tokens=False).input_ids for a in answers]
    slots = [answer_slot(lm.tokenizer, p, lm.chat_template) for p in prompts]
    shared = _shared(lm, slots, ids)
    bar = type("Bar", (), {"update": lambda self, n: None})()
    rows = []
    for slot in slots:
        if lm.head == "lm":
            rows.append(engine_answers._lm_answer_logprobs(lm, slot, ids, None, shared, bar)["logprob"])
        else:
            rows.append(engine_answers._rm_answer_scores(lm, slot, ids, None, shared, bar)["score"])
    return np.array(rows)


def _shared(lm, slots, ids) -> bool:
    """The engine's choice of method (shared prefix unless a sliding window is shorter than prompt + answer)."""
    return supports_shared_prefix(lm, max(len(s.prefix_ids) + len(s.suffix_ids) for s in slots) + max(map(len, ids)))


def _batched(lm, prompts, answers, tmp_path) -> np.ndarray:
    df = score_answers(lm, prompts, answers, cache_root=tmp_path, progress=False)
    col = "logprob" if lm.head == "lm" else "score"
    return df.pivot(index="prompt", columns="answer", values=col).loc[prompts, answers].to_numpy(float)


@pytest.mark.parametrize("family", ["llama", "gemma3", "qwen2"])
@pytest.mark.parametrize("head", ["lm", "rm"])
def test_batched_prompts_equal_one_forward_per_prompt(tiny_lms, tiny_rms, family, head, tmp_path, monkeypatch):
    """Several prompts per forward, in more than one group (a small token budget), one- and multi-token answers:
    each value equals the per-prompt path's, and P(yes) (softmax of two log-probs / sigmoid of two scores) to 1e-6."""
    lm = (tiny_lms if head == "lm" else tiny_rms)[family]
    monkeypatch.setattr(engine_answers, "PREFIX_TOKENS", 120)  # groups of ~2-3 of these prompts
    answers = ["Y", "N", "peace and joy"]
    if family != "gemma3":  # tiny Gemma-3's sliding window (64) is shorter than these conversations: full method
        ids = [lm.tokenizer(a, add_special_tokens=False).input_ids for a in answers]
        assert _shared(lm, [answer_slot(lm.tokenizer, p, lm.chat_template) for p in PROMPTS], ids)
    groups = engine_answers.prompt_groups(lm, [answer_slot(lm.tokenizer, p, lm.chat_template).prefix_ids
                                               for p in PROMPTS])
    assert 1 < len(groups) < len(PROMPTS) and sorted(sum(groups, [])) == list(range(len(PROMPTS)))
    got, ref = _batched(lm, PROMPTS, answers, tmp_path), _reference(lm, PROMPTS, answers)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-5)
    np.testing.assert_allclose(expit(got[:, 0] - got[:, 1]), expit(ref[:, 0] - ref[:, 1]), rtol=0, atol=1e-6)


def test_one_prompt_per_forward_is_the_same_result_and_key(tiny_lms, tmp_path, monkeypatch):
    """The grouping is not part of the cache key (like batch_size): a result computed one prompt per forward is
    served, unchanged, to the batched path, and equals what the batched path computes afresh."""
    lm = tiny_lms["llama"]
    monkeypatch.setattr(engine_answers, "PREFIX_TOKENS", 1)  # every group one prompt
    single = score_answers(lm, PROMPTS, ["Y", "N"], cache_root=tmp_path, progress=False)
    monkeypatch.setattr(engine_answers, "PREFIX_TOKENS", 4096)
    served = score_answers(lm, PROMPTS, ["Y", "N"], cache_root=tmp_path, progress=False)
    fresh = score_answers(lm, PROMPTS, ["Y", "N"], cache_root=tmp_path / "fresh", progress=False)
    assert served.attrs["rmlib"]["key"] == single.attrs["rmlib"]["key"] == fresh.attrs["rmlib"]["key"]
    assert served.equals(single)
    np.testing.assert_allclose(fresh["logprob"], single["logprob"], rtol=0, atol=1e-5)


@pytest.mark.embedded
def test_smollm2_blinding_prompts_batched_equal_per_prompt(smollm2_lm, tmp_path):
    """SmolLM2 in float32 on a handful of the blinding chapter's prompts: P(yes) of the batched path equals the
    per-prompt path's to 1e-5 (float32 rounding: of the LM head run on one row, over 36 prompts up to 5.1e-6, and
    since the shared openings (test_answers_prefix.py) of attention split between an opening and the rest, up to
    3.8e-6 on these six; see benchmarks/README.md)."""
    from rmbook.chapters.blinding.prompts import decision_prompts, load_design

    design = load_design().select(1, ["religion"])
    prompts = list(dict.fromkeys(decision_prompts(design)["prompt"]))[:6]
    answers = list(design.answers)
    got, ref = _batched(smollm2_lm, prompts, answers, tmp_path), _reference(smollm2_lm, prompts, answers)
    np.testing.assert_allclose(expit(got[:, 0] - got[:, 1]), expit(ref[:, 0] - ref[:, 1]), rtol=0, atol=1e-5)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-4)
