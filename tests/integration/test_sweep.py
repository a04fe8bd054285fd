"""The sweep engine on tiny random models: exact against plain forwards, batch invariance, resume after a kill, paper mode, compile."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from rmlib.engine import SweepError, roundtrip_audit, score_answers, sweep
from rmlib.models import CacheWarning, ModelError, load_model
from rmlib.models.templates import TemplateError, answer_slot
from rmlib.storage import shards
import rmlib.engine.token_sweep as sweep_mod

PROMPT = "What, in one word, is the greatest thing ever?"
FAMILIES = ["llama", "gemma2", "gemma3", "qwen2"]


def _full_forward_score(lm, ids):
    with torch.no_grad():
        return lm.model(input_ids=torch.tensor([ids])).logits[0, 0].item()


@pytest.mark.parametrize("family", FAMILIES)
def test_id_exact_equals_plain_forward(family, tiny_rms, tmp_path):
    lm = tiny_rms[family]
    res = sweep(lm, PROMPT, cache_root=tmp_path, progress=False)
    assert res.meta["method"] == "shared_prefix"
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    sample = res.frame.sample(40, random_state=0)
    ref = [_full_forward_score(lm, slot.ids_for([int(i)])) for i in sample.token_id]
    np.testing.assert_allclose(sample.score.to_numpy(), ref, atol=1e-4, rtol=0)
    assert res.frame.score.std() > 1e-3  # the comparison is not between constants


@pytest.mark.parametrize("family", ["llama", "gemma2"])
def test_full_method_matches_shared_prefix(family, tiny_rms, tmp_path):
    lm = tiny_rms[family]
    a = sweep(lm, PROMPT, tokens=range(0, 100), cache_root=tmp_path / "a", progress=False).frame
    b = sweep(lm, PROMPT, tokens=range(0, 100), method="full", cache_root=tmp_path / "b", progress=False).frame
    np.testing.assert_allclose(a.score, b.score, atol=1e-4)


def test_scores_invariant_to_batch_size(tiny_rms, tmp_path):
    lm = tiny_rms["gemma3"]
    frames = [sweep(lm, PROMPT, batch_size=bs, cache_root=tmp_path / str(bs), progress=False).frame
              for bs in (1, 17, 256)]
    for f in frames[1:]:
        # GEMM blocking differs with batch shape, so fp32 agreement is to float tolerance, not bitwise
        np.testing.assert_allclose(frames[0].score, f.score, atol=1e-4, rtol=0)
        assert (frames[0].score.rank() == f.score.rank()).mean() > 0.95


@pytest.mark.parametrize("family", ["llama", "gemma2"])
def test_lm_sweep_keeps_logits_and_logsoftmax_apart(family, tiny_lms, tmp_path):
    lm = tiny_lms[family]
    df = sweep(lm, PROMPT, cache_root=tmp_path, progress=False).frame
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    with torch.no_grad():
        logits = lm.model(input_ids=torch.tensor([list(slot.prefix_ids)])).logits[0, -1]
    np.testing.assert_allclose(df.logit, logits.numpy(), atol=1e-4)
    np.testing.assert_allclose(df.logprob, torch.log_softmax(logits, -1).numpy(), atol=1e-4)
    assert np.isclose(np.exp(df.logprob).sum(), 1.0, atol=1e-4)
    assert not np.allclose(df.logit, df.logprob)


@pytest.mark.parametrize("family", ["llama", "gemma3"])
def test_multi_token_answers_match_plain_forward(family, tiny_rms, tiny_lms, tmp_path):
    words = ["love", "peace and joy", "the quick brown fox", "x"]
    prompts = [PROMPT, "What is the worst thing of all time?"]
    rm, lm = tiny_rms[family], tiny_lms[family]
    got = score_answers(rm, prompts, words, cache_root=tmp_path / "rm", progress=False)
    got_lp = score_answers(lm, prompts, words, cache_root=tmp_path / "lm", progress=False)
    assert len(got) == len(got_lp) == 8
    for p in prompts:
        slot = answer_slot(rm.tokenizer, p, rm.chat_template)
        for w in words:
            ids = rm.tokenizer(w, add_special_tokens=False).input_ids
            ref = _full_forward_score(rm, slot.ids_for(ids))
            row = got[(got.prompt == p) & (got.answer == w)].iloc[0]
            assert row.n_tokens == len(ids)
            assert abs(row.score - ref) < 1e-4
            full = list(slot.prefix_ids) + ids
            with torch.no_grad():
                lp = torch.log_softmax(lm.model(input_ids=torch.tensor([full])).logits[0], -1)
            P = len(slot.prefix_ids)
            ref_lp = sum(lp[P - 1 + k, t].item() for k, t in enumerate(ids))
            row = got_lp[(got_lp.prompt == p) & (got_lp.answer == w)].iloc[0]
            assert abs(row.logprob - ref_lp) < 1e-3


def test_paper_mode_doubles_bos_and_id_exact_does_not(tiny_rms, tmp_path):
    lm = tiny_rms["llama"]
    bos = lm.tokenizer.bos_token_id
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    assert slot.prefix_ids[0] == bos and slot.prefix_ids[1] != bos
    paper = sweep(lm, PROMPT, tokens=range(40, 80), mode="paper", batch_size=8, cache_root=tmp_path,
                  progress=False).frame
    assert (paper.n_bos == 2).all()
    exact = sweep(lm, PROMPT, tokens=range(40, 80), cache_root=tmp_path, progress=False).frame
    assert not np.allclose(paper.score, exact.score, atol=1e-3)  # the extra BOS changes the scores
    audit = roundtrip_audit(lm)
    assert audit["paper_mode_leading_bos"] == 2 and audit["id_exact_leading_bos"] == 1
    assert 0 <= audit["share_changed"] <= 1


def test_paper_mode_reads_the_token_before_the_first_pad_and_id_exact_the_real_last(tiny_rms, tmp_path):
    """#40 item 2: the paper's pipeline (transformers' sequence-classification head of the version it pinned) read
    the token before a row's first pad, so the conversation whose answer is the pad token itself was scored at the
    token before the answer. Paper mode reproduces that; id-exact reads the real last token. Before, paper mode read
    the last non-pad token, as today's transformers does."""
    from rmlib.engine.kernels import rm_scores_full
    from rmlib.models.templates import paper_text

    lm = tiny_rms["llama"]
    pad, other = lm.tokenizer.pad_token_id, 40
    paper = sweep(lm, PROMPT, tokens=[pad, other], mode="paper", cache_root=tmp_path / "paper",
                  progress=False).frame.set_index("token_id").score
    text = paper_text(lm.tokenizer, PROMPT, lm.tokenizer.decode([pad]), lm.chat_template)
    conv = lm.tokenizer(text).input_ids
    first_pad = conv.index(pad)
    assert first_pad < len(conv) - 1  # the pad answer sits inside the conversation, its end of turn after it
    before_pad = rm_scores_full(lm, [conv[:first_pad]]).item()  # causal: what the row holds at that position
    real_last = rm_scores_full(lm, [conv]).item()
    assert abs(real_last - before_pad) > 1e-3  # the two readings differ, so the test can tell them apart
    assert paper[pad] == pytest.approx(before_pad, abs=1e-5)
    other_conv = lm.tokenizer(paper_text(lm.tokenizer, PROMPT, lm.tokenizer.decode([other]), lm.chat_template)).input_ids
    assert paper[other] == pytest.approx(rm_scores_full(lm, [other_conv]).item(), abs=1e-5)  # no pad: the last token
    exact = sweep(lm, PROMPT, tokens=[pad], cache_root=tmp_path / "exact", progress=False).frame.score.iloc[0]
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    assert exact == pytest.approx(rm_scores_full(lm, [slot.ids_for([pad])]).item(), abs=1e-5)


def test_kill_and_resume_loses_nothing(tiny_rms, tmp_path, monkeypatch):
    lm = tiny_rms["qwen2"]
    monkeypatch.setattr(sweep_mod, "CHUNK", 50)
    reference = sweep(lm, PROMPT, cache_root=tmp_path / "ref", progress=False).frame
    real_write = shards.ShardStore.write_shard
    calls = {"n": 0}

    def dying_write(self, index, df):
        calls["n"] += 1
        if calls["n"] == 4:
            # a crash mid-write leaves only a temp file behind
            (self.root / f".shard-{index:05d}.parquet.123.tmp").write_bytes(b"partial")
            raise KeyboardInterrupt("killed")
        real_write(self, index, df)

    monkeypatch.setattr(shards.ShardStore, "write_shard", dying_write)
    with pytest.raises(KeyboardInterrupt):
        sweep(lm, PROMPT, cache_root=tmp_path / "run", progress=False)
    run_dir = next((tmp_path / "run").iterdir())
    assert not (run_dir / "COMPLETE").exists()
    assert len(list(run_dir.glob("shard-*.parquet"))) == 3
    monkeypatch.setattr(shards.ShardStore, "write_shard", real_write)
    written = []
    monkeypatch.setattr(shards.ShardStore, "write_shard",
                        lambda self, i, df: (written.append(i), real_write(self, i, df)))
    resumed = sweep(lm, PROMPT, cache_root=tmp_path / "run", progress=False).frame
    assert written[0] == 3 and 0 not in written  # finished shards were not recomputed
    assert resumed.token_id.is_unique and len(resumed) == len(reference)
    pd.testing.assert_frame_equal(resumed.reset_index(drop=True), reference.reset_index(drop=True))


def test_finished_sweep_is_served_from_cache(tiny_rms, tmp_path):
    lm = tiny_rms["llama"]
    first = sweep(lm, PROMPT, tokens=range(10), cache_root=tmp_path, progress=False)
    again = sweep(lm, PROMPT, tokens=range(10), cache_root=tmp_path, progress=False)
    other = sweep(lm, "What is the worst thing ever?", tokens=range(10), cache_root=tmp_path, progress=False)
    assert not first.cached and again.cached and not other.cached
    meta = again.meta
    for field in ("model", "revision", "prompt", "template_hash", "mode", "dtype", "batch_size", "rmlib_version"):
        assert field in meta
    pd.testing.assert_frame_equal(first.frame, again.frame)


def test_corrupted_shard_is_named_moved_aside_and_recomputed(tiny_rms, tmp_path):
    lm = tiny_rms["llama"]
    res = sweep(lm, PROMPT, cache_root=tmp_path, progress=False)
    folder = tmp_path / res.meta["key"]
    shard = next(folder.glob("shard-00000-*.parquet"))
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    data[-10:] = b"0123456789"
    shard.write_bytes(bytes(data))
    with pytest.warns(CacheWarning, match=shard.name):
        again = sweep(lm, PROMPT, cache_root=tmp_path, progress=False)
    assert not again.cached
    pd.testing.assert_frame_equal(again.frame, res.frame)
    assert list(folder.glob(shard.name + ".corrupt-*"))


def test_nan_scores_are_refused_and_nothing_marked_complete(tmp_path):
    lm = load_model("tiny-llama", head="rm", dtype="float32", allow_untrained_head=True)
    with torch.no_grad():
        lm.model.score.weight[0, 0] = float("nan")
    with pytest.raises(SweepError, match="non-finite \\(NaN\\)"):
        sweep(lm, PROMPT, tokens=range(20), cache_root=tmp_path, progress=False)
    assert not list(tmp_path.glob("*/COMPLETE"))
    assert not list(tmp_path.glob("*/shard-*.parquet"))


@pytest.mark.parametrize("tokens, message", [(range(0), "empty"), ([5, 10**7], "out of range"),
                                             ([-1], "out of range"), ([3, 3], "repeats")])
def test_bad_vocabulary_slices(tokens, message, tiny_rms, tmp_path):
    with pytest.raises(SweepError, match=message):
        sweep(tiny_rms["llama"], PROMPT, tokens=tokens, cache_root=tmp_path, progress=False)
    assert not list(tmp_path.glob("*/COMPLETE"))


def test_prompt_with_control_tokens_is_refused(tiny_rms, tmp_path):
    with pytest.raises(TemplateError, match="control token"):
        sweep(tiny_rms["qwen2"], "hi<|im_end|><|im_start|>assistant", cache_root=tmp_path, progress=False)
    with pytest.raises(TemplateError, match="empty"):
        sweep(tiny_rms["qwen2"], "  ", cache_root=tmp_path, progress=False)


def test_model_without_chat_template_needs_a_fallback(tmp_path):
    lm = load_model("tiny-llama", head="lm", dtype="float32")
    lm.tokenizer.chat_template = None
    from rmlib.models.templates import chat_template_of
    with pytest.raises(TemplateError, match="no chat template"):
        chat_template_of(lm.tokenizer)
    assert "<start_of_turn>" in chat_template_of(lm.tokenizer, "gemma")


def test_cli_sweep_and_errors(tmp_path, monkeypatch, capsys):
    from rmlib.cli import main
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    assert main(["sweep", "--model", "tiny-qwen2", "--prompt", PROMPT, "--tokens", "0:64", "--top", "3",
                 "--dtype", "float32", "--out", str(tmp_path / "o.parquet")]) == 0
    out = capsys.readouterr().out
    assert "64 tokens" in out and "top 3" in out
    assert len(pd.read_parquet(tmp_path / "o.parquet")) == 64
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["sweep", "--model", "RLHFlow/ArmoRM-Llama3-8B-v0.1", "--prompt", PROMPT]) == 2
    assert "in the local model cache" in capsys.readouterr().err  # no remote code asked for: the head is rmlib's
    assert main(["models"]) == 0
    assert "Skywork/Skywork-Reward-Gemma-2-27B" in capsys.readouterr().out


def test_multi_token_lm_logprobs_agree_between_shared_and_full_paths(tiny_lms):
    from rmlib.engine.answers import _lm_answer_logprobs
    from tqdm import tqdm
    lm = tiny_lms["gemma2"]
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    answers = [lm.tokenizer(w, add_special_tokens=False).input_ids for w in ["love", "peace and joy", "war"]]
    a = _lm_answer_logprobs(lm, slot, answers, 2, True, tqdm(disable=True))["logprob"]
    b = _lm_answer_logprobs(lm, slot, answers, 2, False, tqdm(disable=True))["logprob"]
    np.testing.assert_allclose(a, b, atol=1e-4)
    assert len(set(np.round(a, 3))) == 3


def test_long_conversations_fall_back_to_full_attention(tiny_rms, tmp_path):
    lm = tiny_rms["gemma3"]  # sliding window 64 in the tiny config
    long_prompt = "What is the best thing in the world? " * 6
    res = sweep(lm, long_prompt, tokens=range(20), cache_root=tmp_path, progress=False)
    assert res.meta["method"] == "full"
    slot = answer_slot(lm.tokenizer, long_prompt, lm.chat_template)
    assert len(slot.prefix_ids) > 64
    ref = [_full_forward_score(lm, slot.ids_for([int(i)])) for i in res.frame.token_id[:5]]
    np.testing.assert_allclose(res.frame.score[:5], ref, atol=1e-4)


def test_a_checkpoint_without_a_reward_head_is_not_taken_for_an_rm(tmp_path):
    from rmlib.models.tiny import tiny_model
    from rmlib.registry import ModelSpec, registry
    lm_model, tok = tiny_model("llama", head="lm")
    lm_model.save_pretrained(tmp_path / "lm")
    tok.save_pretrained(tmp_path / "lm")
    (tmp_path / "lm" / "rmlib_run.yaml").write_text("base_model: tiny-llama\n")
    with pytest.raises(ModelError, match="no trained reward head"):
        load_model(f"local:{tmp_path / 'lm'}", dtype="float32")
    flagged = load_model(f"local:{tmp_path / 'lm'}", dtype="float32", allow_untrained_head=True)
    assert flagged.untrained_head


def test_compiled_sweep_equals_eager(tiny_rms, tmp_path):
    """The opt-in torch.compile path (fixed batch shape, short last batch padded) gives the eager scores in fp32."""
    lm = tiny_rms["llama"]
    eager = sweep(lm, PROMPT, tokens=range(0, 50), batch_size=16, cache_root=tmp_path, progress=False)
    comp = sweep(lm, PROMPT, tokens=range(0, 50), batch_size=16, cache_root=tmp_path, progress=False,
                 compile=True)  # 50 = 3 full batches of 16 + a padded batch of 2
    # same cache: compiled scores are not served as eager ones (bf16 rounding differs), nor the reverse
    assert not comp.cached and comp.meta["compiled"] and not eager.meta["compiled"]
    assert comp.meta["key"] != eager.meta["key"]
    with pytest.raises(SweepError, match="compile=True needs"):
        sweep(lm, PROMPT, tokens=range(0, 4), mode="paper", compile=True, cache_root=tmp_path, progress=False)
    np.testing.assert_allclose(comp.frame.score.to_numpy(), eager.frame.score.to_numpy(), atol=1e-4, rtol=0)
