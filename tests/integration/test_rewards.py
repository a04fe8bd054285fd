"""Rewards from tiny models in one shape, labelled by kind: token and answer rewards, value scores, reference log-probs."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from rmbook.analysis import values as vp
from rmbook.analysis.values import value_profile
from rmbook.chapters.mere_exposure import analysis as exposure
from rmlib import engine
from rmlib.data import LM_LOGPROB
from rmlib.engine import score_answers
from rmlib.engine import score_answers
from rmlib.models import LoadOptions, load_model
from rmlib.models import LoadOptions, load_model
from rmlib.models import load_model
from rmlib.models.templates import answer_slot
from rmlib.models.templates import answer_slot

PROMPT = "What, in one word, is the greatest thing ever?"


def test_compute_rewards_label_their_kind(tmp_path, monkeypatch):
    from rmlib import engine
    from rmlib.data import LM_LOGPROB
    from rmlib.models import LoadOptions
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    lm_rows = engine.token_rewards("tiny-qwen2", PROMPT, tokens=range(30), progress=False, load=LoadOptions(dtype="float32"))
    assert (lm_rows.reward_kind == LM_LOGPROB).all()
    assert (lm_rows.reward == lm_rows.logprob).all() and lm_rows.reward.lt(0).all()
    words = engine.answer_rewards("tiny-qwen2", [PROMPT], ["love", "peace and joy"], progress=False,
                                  load=LoadOptions(dtype="float32"))
    assert list(words.columns[:3]) == ["model", "prompt", "answer"] and words.reward.lt(0).all()


def test_compute_token_scores_and_reference_logprob_on_a_tiny_lm(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    ts = engine.token_reward_table(["tiny-llama"], ["greatest", "worst"], tokens=slice(0, 64))
    assert set(ts["prompt_valence"]) == {"positive", "negative"} and (ts["level"] == "token").all()
    assert ts["reward_kind"].unique().tolist() == ["LM log-prob (implicit reward)"]
    assert ts.groupby("prompt_key")["token_id"].nunique().max() <= 64
    ref = exposure.attach_reference_logprob(ts)
    # an LM's implicit reward is its own log-prob, so the reference column reproduces the score
    assert (ref["reference_lm"] == "tiny-llama").all()
    assert np.allclose(ref["lm_logprob"], ref["reward"], atol=1e-5)
    hub = ts.head(3).assign(model="Ray2333/GRM-gemma2-2B-rewardmodel-ft")
    assert exposure.attach_reference_logprob(hub)["lm_logprob"].isna().all()  # unknown base: nothing is loaded
    with pytest.raises(ValueError, match="models is empty"):
        engine.token_reward_table([], ["greatest"])


PROMPTS = ["best_ever_one", "greatest_ever_one", "worst_ever_one", "bad_ever_one"]


def test_compute_scores_shape_with_tiny_models(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    words = ["accuracy", "ambition", "affection", "alliance"]
    out = vp.compute_value_scores(["tiny-gemma3", "tiny-llama"], "big2", prompt_keys=PROMPTS, words=words,
                                  load=LoadOptions(dtype="float32"))
    assert len(out) == 2 * len(PROMPTS) * len(words)
    assert set(out["family"]) == {"Gemma", "Llama"} and (out["reward_kind"] == LM_LOGPROB).all()
    assert (out["reward"] < 0).all() and (out["n_tokens"] >= 1).all()
    assert set(out["category"]) == {"Agency", "Communion"}
    with pytest.raises(ValueError, match="not in the big2 lexicon"):
        vp.compute_value_scores(["tiny-llama"], "big2", prompt_keys=PROMPTS, words=["zzzz"])


@torch.inference_mode()
def test_lm_logprobs_and_rm_scores_share_one_conversation_template(tmp_path):
    """score_answers puts a word in the same templated answer slot for an LM (summed log-prob) and an RM (reward)."""
    prompt = "What, in one word, is the greatest thing ever?"
    words = ["kindness", "music family"]                      # the second is several tokens
    lm = load_model("tiny-llama", head="lm", dtype="float32")
    rm = load_model("tiny-llama", head="rm", dtype="float32", allow_untrained_head=True)  # arithmetic check only
    slot = answer_slot(lm.tokenizer, prompt, lm.chat_template)
    assert slot == answer_slot(rm.tokenizer, prompt, rm.chat_template)
    assert "<|start_header_id|>" in lm.tokenizer.decode(slot.prefix_ids)   # the chat template is applied
    lp = score_answers(lm, [prompt], words, cache_root=tmp_path, progress=False)
    sc = score_answers(rm, [prompt], words, cache_root=tmp_path, progress=False)
    for w, got_lp, got_sc in zip(words, lp["logprob"], sc["score"]):
        ids = lm.tokenizer(w, add_special_tokens=False).input_ids
        assert len(ids) > 1 or w == "kindness"
        full = list(slot.prefix_ids) + ids
        logp = torch.log_softmax(lm.model(torch.tensor([full])).logits[0].float(), -1)
        want = sum(float(logp[len(slot.prefix_ids) - 1 + k, t]) for k, t in enumerate(ids))
        assert got_lp == pytest.approx(want, abs=1e-4)
        want_rm = float(rm.model(torch.tensor([slot.ids_for(ids)])).logits[0, 0])
        assert got_sc == pytest.approx(want_rm, abs=1e-4)
        # the bare prompt without the template gives a different number, so the check above has teeth
        bare = lm.tokenizer(prompt).input_ids + ids
        logp_bare = torch.log_softmax(lm.model(torch.tensor([bare])).logits[0].float(), -1)
        other = sum(float(logp_bare[len(bare) - len(ids) - 1 + k, t]) for k, t in enumerate(ids))
        assert abs(other - want) > 1e-3


LEXICON = pd.DataFrame({"word": ["peace", "hope", "joy", "war", "fear", "pain"],
                        "category": ["good", "good", "good", "bad", "bad", "bad"]})


def test_lm_value_profile_is_labelled_implicit():
    prof = value_profile("tiny-qwen2", LEXICON, progress=False, load=LoadOptions(dtype="float32"))
    assert set(prof["reward_kind"]) == {"LM log-prob (implicit reward)"}
    assert set(prof["prompt_label"]) == {"positive", "negative"} and prof["median_rank"].between(1, 6).all()
