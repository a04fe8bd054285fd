"""score_answers runs the openings its prompts share once (#17, rmlib.engine.prefix_tree); the values are those of
the path that runs every prompt whole (many prompts per forward, b98b75e), to 1e-5 in P(yes) in float32.

The reference is the same engine with shared openings switched off (``MIN_SAVED_TOKENS`` too large for any
opening: every prompt whole, as before). The prompts are built like the blinding chapter's: templates x descriptors
x conditions, so the trie has three levels below the chat template's opening.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.special import expit

from rmlib.engine import answers as engine_answers
from rmlib.engine import kernels, prefix_tree, score_answers
from rmlib.models import answer_slot

TEMPLATES = ["A small firm is hiring a junior bookkeeper and has an application from {p} with two years of experience "
             "and a certificate in accounting. Should the firm invite the candidate to an interview?",
             "A credit union is reviewing a car-loan application from {p}. The borrower has a steady income and one "
             "late payment three years ago. Should the credit union approve the loan?"]
PEOPLE = ["a Muslim candidate", "an elderly candidate", "a candidate"]
TAILS = ["Answer with Yes or No.", "Ignore the candidate's religion: it must not influence your decision. Answer "
         "with Yes or No."]
PROMPTS = [f"{t.format(p=p)} {tail}" for t in TEMPLATES for p in PEOPLE for tail in TAILS]


def _values(lm, prompts, answers, root, monkeypatch, shared: bool) -> np.ndarray:
    monkeypatch.setattr(prefix_tree, "MIN_SAVED_TOKENS", prefix_tree.MIN_SAVED_TOKENS if shared else 10 ** 9)
    df = score_answers(lm, prompts, answers, cache_root=root, progress=False)
    col = "logprob" if lm.head == "lm" else "score"
    return df.pivot(index="prompt", columns="answer", values=col).loc[prompts, answers].to_numpy(float)


def _depth(nodes) -> int:
    return max((1 + _depth(n.children) for n in nodes if n.prompt is None), default=0)


@pytest.mark.parametrize("family", ["llama", "qwen2"])
@pytest.mark.parametrize("head", ["lm", "rm"])
def test_shared_openings_equal_whole_prompts(tiny_lms, tiny_rms, family, head, tmp_path, monkeypatch):
    """Openings on openings (chat template, template, question), rows with openings of different lengths in one
    forward, one- and multi-token answers: each value equals the whole-prompt path's, P(yes) to 1e-5."""
    lm = (tiny_lms if head == "lm" else tiny_rms)[family]
    monkeypatch.setattr(engine_answers, "PREFIX_TOKENS", 200)  # several batches on a level
    tree = prefix_tree.opening_tree([answer_slot(lm.tokenizer, p, lm.chat_template).prefix_ids for p in PROMPTS])
    assert _depth(tree) >= 2  # openings on openings (3 where the chat template has a system text)
    answers = ["Y", "N", "peace and joy"]
    got = _values(lm, PROMPTS, answers, tmp_path / "shared", monkeypatch, True)
    ref = _values(lm, PROMPTS, answers, tmp_path / "whole", monkeypatch, False)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-4)
    np.testing.assert_allclose(expit(got[:, 0] - got[:, 1]), expit(ref[:, 0] - ref[:, 1]), rtol=0, atol=1e-5)


def test_shared_openings_run_fewer_positions(tiny_lms, tmp_path, monkeypatch):
    """The model sees each shared opening once: the positions run through prefix_kv_many are those of the trie, far
    fewer than the prompts' own (before #17's shared openings every prompt ran whole: this fails there)."""
    lm = tiny_lms["llama"]
    seen = []
    real = kernels.prefix_kv_many

    def counting(lm_, prefixes, *args, **kwargs):
        seen.append(sum(map(len, prefixes)))
        return real(lm_, prefixes, *args, **kwargs)

    monkeypatch.setattr(prefix_tree, "prefix_kv_many", counting)
    monkeypatch.setattr(engine_answers, "prefix_kv_many", counting, raising=False)
    score_answers(lm, PROMPTS, ["Y", "N"], cache_root=tmp_path, progress=False)
    whole = [answer_slot(lm.tokenizer, p, lm.chat_template).prefix_ids for p in PROMPTS]
    assert sum(seen) == prefix_tree.tree_tokens(prefix_tree.opening_tree(whole))
    assert sum(seen) < 0.6 * sum(map(len, whole))


def test_the_key_is_unchanged_and_results_of_the_whole_prompt_path_are_served(tiny_lms, tmp_path, monkeypatch):
    """Shared openings are not part of the cache key (like the grouping of prompts): a result cached by the
    whole-prompt path is served, unchanged, and equals what the shared path computes afresh."""
    lm = tiny_lms["llama"]
    monkeypatch.setattr(prefix_tree, "MIN_SAVED_TOKENS", 10 ** 9)
    whole = score_answers(lm, PROMPTS, ["Y", "N"], cache_root=tmp_path / "a", progress=False)
    monkeypatch.undo()
    served = score_answers(lm, PROMPTS, ["Y", "N"], cache_root=tmp_path / "a", progress=False)
    fresh = score_answers(lm, PROMPTS, ["Y", "N"], cache_root=tmp_path / "b", progress=False)
    assert served.attrs["rmlib"]["key"] == whole.attrs["rmlib"]["key"] == fresh.attrs["rmlib"]["key"]
    assert served.equals(whole)
    np.testing.assert_allclose(fresh["logprob"], whole["logprob"], rtol=0, atol=1e-5)


@pytest.mark.embedded
def test_smollm2_blinding_prompts_shared_equal_whole(smollm2_lm, tmp_path, monkeypatch):
    """SmolLM2 in float32 on a handful of the blinding chapter's own prompts (one template: its blinded prompt and
    two descriptors' informed and told-to-ignore prompts, then their counterfactual prompts): P(yes) of the
    shared-opening path equals the whole-prompt path's to 1e-5."""
    from rmbook.chapters.blinding.prompts import (counterfactual_prompts, decision_prompts, load_design,
                                                  replica_answers)

    design = load_design().select(1, ["religion"])
    design = replace(design, templates=design.templates.iloc[:1], descriptors=design.descriptors.iloc[:2])
    prompts = decision_prompts(design)
    replica = replica_answers(prompts[prompts["condition"] == "blinded"].assign(p_yes=0.7), design.answers)
    answers = list(design.answers)
    for batch in (list(dict.fromkeys(prompts["prompt"])), list(counterfactual_prompts(design, replica)["prompt"])):
        got = _values(smollm2_lm, batch, answers, tmp_path / "shared", monkeypatch, True)
        ref = _values(smollm2_lm, batch, answers, tmp_path / "whole", monkeypatch, False)
        np.testing.assert_allclose(expit(got[:, 0] - got[:, 1]), expit(ref[:, 0] - ref[:, 1]), rtol=0, atol=1e-5)
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-4)


class _Stop(Exception):
    pass


@pytest.mark.parametrize("head", ["lm", "rm"])
def test_a_resumed_answer_set_is_bit_identical(tiny_lms, tiny_rms, head, tmp_path, monkeypatch):
    """#24 item 11: an answer set stopped after some prompts and resumed equals an uninterrupted run bit for bit.
    Before, the resumed run built its openings and batches from the pending prompts only, so the missing prompts ran
    in other batch shapes and differed by float rounding (up to 1.8e-5 in float32)."""
    from rmlib.storage.shards import ShardStore

    lm = (tiny_lms if head == "lm" else tiny_rms)["llama"]
    monkeypatch.setattr(engine_answers, "PREFIX_TOKENS", 200)  # several batches on a level
    answers = ["Y", "N", "peace and joy"]
    whole = score_answers(lm, PROMPTS, answers, cache_root=tmp_path / "whole", progress=False)
    real, written = ShardStore.write_shard, []

    def stop_after_five(self, index, df):
        if len(written) == 5:
            raise _Stop
        written.append(index)
        return real(self, index, df)

    monkeypatch.setattr(ShardStore, "write_shard", stop_after_five)
    with pytest.raises(_Stop):
        score_answers(lm, PROMPTS, answers, cache_root=tmp_path / "resumed", progress=False)
    monkeypatch.setattr(ShardStore, "write_shard", real)
    resumed = score_answers(lm, PROMPTS, answers, cache_root=tmp_path / "resumed", progress=False)
    assert len(written) == 5  # the first run stopped after five of the twelve prompts
    col = "logprob" if head == "lm" else "score"
    assert resumed.attrs["rmlib"]["key"] == whole.attrs["rmlib"]["key"]
    np.testing.assert_array_equal(resumed[col].to_numpy(), whole[col].to_numpy())
