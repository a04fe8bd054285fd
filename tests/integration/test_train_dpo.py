"""rmlib.train's DPO objective (an implicit RM) on tiny random models and the planted-marker pairs: it learns the
rule, sees exactly the Bradley-Terry run's data, resumes, exports a loadable LM, and its implicit reward is TRL's."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import torch

from rmlib.models import ModelError, load_model
from rmlib.registry import get_spec
from rmlib.trained import local_rm_dir
from rmlib.train import (completion_logps, encode_pairs, pairwise_accuracy, score_pairs, select_pairs,
                         train)


from tests.integration.train_support import Crash, marker_config, module_cache, weights  # noqa: F401 (fixture)


@pytest.fixture(autouse=True, scope="module")
def cache(module_cache):
    return module_cache


def cfg(name, base="tiny-llama", **kw):
    return marker_config(name, base, **{"objective": "dpo", "beta": 0.1, **kw})


@pytest.fixture(scope="module")
def im_run(cache):
    return train(cfg("marker-im"), progress=False)


def test_im_rm_learns_the_planted_marker(im_run):
    lm = load_model(im_run.model_id, dtype="float32")
    assert lm.head == "lm" and lm.spec.kind == "lm" and lm.spec.extra["objective"] == "dpo"
    test = pd.read_parquet(im_run.run_dir / "test_pairs.parquet")
    scored = score_pairs(lm, test, max_len=96, progress=False)
    assert len(scored) >= 16 and pairwise_accuracy(scored) >= 0.9, scored["margin"].describe()
    # the implicit reward is beta * (log pi - log pi_ref) of each completion
    np.testing.assert_allclose(scored["reward_chosen"], 0.1 * (scored["logp_chosen"] - scored["ref_logp_chosen"]),
                               rtol=1e-5, atol=1e-6)
    # likelihood displacement is on record: the policy's log-probs and the margin, every step
    log = im_run.log
    assert log["step"].tolist() == list(range(1, 17))
    for col in ("logps/chosen", "logps/rejected", "rewards/margins"):
        assert log[col].notna().all(), col
    assert log["rewards/margins"].tail(4).mean() > log["rewards/margins"].head(2).mean() + 0.2
    assert log["loss"].head(4).mean() > log["loss"].tail(4).mean()


def test_reference_log_probs_are_the_base_and_rmlib_scores_them_like_trl(im_run):
    """The cached reference pass (TRL's, once per distinct pair) equals rmlib's completion log-prob on the base, so
    the implicit reward rmlib reports is the one DPO optimised."""
    c = cfg("marker-im")
    ref = pd.read_parquet(im_run.run_dir / "ref_logps.parquet")
    train_pairs, _ = select_pairs(c)
    assert ref["pair_id"].tolist() == train_pairs["pair_id"].tolist()  # one row per distinct pair
    base = load_model("tiny-llama", head="lm", dtype="float32", seed=0)
    enc = encode_pairs(base.tokenizer, base.chat_template, train_pairs, 96)
    for side in ("chosen", "rejected"):
        mine = completion_logps(base, list(enc[f"{side}_ids"]), enc["prompt_len"].to_numpy())
        np.testing.assert_allclose(mine, ref[f"ref_{side}_logps"], rtol=1e-4, atol=1e-3)


def test_explicit_and_implicit_runs_of_one_config_see_identical_data(im_run):
    ex = train(cfg("marker-ex", objective="bradley_terry"), progress=False)
    assert ex.run["data_hash"] == im_run.run["data_hash"] and ex.run["test_hash"] == im_run.run["test_hash"]
    assert ex.steps == im_run.steps and ex.checkpoints == im_run.checkpoints == [8, 16]
    pd.testing.assert_frame_equal(ex.data_order, im_run.data_order)
    a = pd.read_csv(ex.run_dir / "consumed_from_0.csv")
    b = pd.read_csv(im_run.run_dir / "consumed_from_0.csv")
    assert len(b) == 16 * 8 and a["pair_index"].tolist() == b["pair_index"].tolist()
    assert "objective" not in ex.run and im_run.run["objective"] == "dpo" and im_run.run["beta"] == 0.1
    assert get_spec(ex.model_id).kind == "rm" and get_spec(im_run.model_id).kind == "lm"


def test_dpo_resume_after_kill_matches_uninterrupted_run():
    short = dict(n_pairs=32, n_test=8, steps=10, save_every=4, batch_size=4)
    whole = train(cfg("im-resume-a", **short), progress=False)
    with pytest.raises(KeyboardInterrupt):
        train(cfg("im-resume-b", **short), progress=False, callbacks=[Crash(6)])
    assert not (local_rm_dir("im-resume-b") / "config.json").exists()
    assert (local_rm_dir("im-resume-b") / "ref_logps.parquet").exists()  # the reference pass is not redone
    resumed = train(cfg("im-resume-b", **short), progress=False)
    assert resumed.resumed_from == 4 and resumed.checkpoints == whole.checkpoints == [4, 8, 10]
    wa, wb = weights(whole.run_dir), weights(resumed.run_dir)
    assert wa.keys() == wb.keys()
    for k in wa:
        torch.testing.assert_close(wa[k], wb[k], atol=1e-5, rtol=1e-4)
    pd.testing.assert_frame_equal(whole.data_order, resumed.data_order)


@pytest.mark.parametrize("tuning", ["last_n", "lora"])
def test_partial_tunings_for_dpo_keep_the_lm_head_and_embeddings(tuning):
    r = train(cfg(f"im-{tuning}", base="tiny-qwen2", n_pairs=16, n_test=8, steps=2, batch_size=4, lr=1e-2,
                  tuning=tuning, n_layers=1, save_every=2, dtype="bfloat16"), progress=False)
    lm = load_model(r.model_id, dtype="float32")
    assert lm.head == "lm" and lm.spec.extra["weights"] == ("partial" if tuning == "last_n" else "full")
    init = load_model("tiny-qwen2", head="lm", dtype="float32", seed=0).model.state_dict()
    w = {k: v.float() for k, v in lm.model.state_dict().items()}
    assert w.keys() == init.keys()  # LoRA is merged: a plain causal LM
    changed = {k for k in w if not torch.allclose(w[k], init[k])}
    assert changed and "model.embed_tokens.weight" not in changed and "lm_head.weight" not in changed
    if tuning == "last_n":  # the tied LM head stays frozen: only the last layer and the final norm move
        assert all(k.startswith(("model.layers.1.", "model.norm")) for k in changed), changed
    else:
        assert any(k.startswith("model.layers.0.") for k in changed)
    with pytest.raises(ModelError, match="language model|causal LM"):
        load_model(r.model_id, head="rm", dtype="float32")


def test_train_both_gives_a_changed_config_a_name_of_its_own_instead_of_stopping():
    """A rerun of the implicit_vs_explicit chapter with one parameter changed (here the learning rate) met the first
    run's RMs under the same names and stopped with "holds a different run". Each config now trains under a name of
    its own (the RM's name, then with its run hash), and a rerun of the same config reuses its RMs."""
    from rmbook.chapters.implicit_vs_explicit.analysis import train_both

    base = marker_config("unused", steps=2, save_every=2)
    first = train_both(base, 0.1, progress=False)
    second = train_both(replace(base, lr=1e-3), 0.1, progress=False)
    third = train_both(replace(base, lr=5e-4), 0.1, progress=False)
    names = [r[k].name for r in (first, second, third) for k in ("ex", "im")]
    assert len(set(names)) == 6, names
    assert first["ex"].name.startswith("ft-") and second["ex"].name.startswith("ive-ex-")
    assert third["ex"].name.startswith(second["ex"].name + "-") and third["im"].name.startswith(first["im"].name + "-")
    again = train_both(replace(base, lr=1e-3), 0.1, progress=False)
    assert [again[k].name for k in ("ex", "im")] == [second[k].name for k in ("ex", "im")]
    assert again["ex"].resumed_from is None and again["ex_reused"]


def test_on_a_cpu_trls_fused_lm_head_scores_only_the_completions_positions(monkeypatch):
    """TRL's fused LM head scored every position of a CPU batch, the prompt's too, and masked them after: 90% of a
    SmolLM2 DPO step (#61). Its compact path scores the labelled positions only: fewer rows, the same reference
    log-probs, per-step losses and trained weights (float32, to rounding)."""
    import contextlib

    from rmlib.train import dpo
    from trl.kernels import chunked_logprob

    rows = {"compact": 0, "every": 0}
    real_tile = chunked_logprob._forward_tile
    mode = "compact"

    def counting(tile, *a, **k):  # (tile, stride, targets, 7 running statistics, vocab_start, ...)
        if a[9] == 0:  # a tile of the vocabulary's first chunk: each scored position once
            rows[mode] += tile.shape[0]
        return real_tile(tile, *a, **k)

    monkeypatch.setattr(chunked_logprob, "_forward_tile", counting)
    short = dict(n_pairs=16, n_test=8, steps=4, save_every=4, batch_size=4)
    compact = train(cfg("im-compact", **short), progress=False)
    mode = "every"
    monkeypatch.setattr(dpo, "completion_positions_only", contextlib.nullcontext)
    every = train(cfg("im-every", **short), progress=False)
    assert 0 < rows["compact"] < rows["every"] / 2, rows  # the prompts are most of the marker pairs' tokens
    ref_a, ref_b = (pd.read_parquet(r.run_dir / "ref_logps.parquet") for r in (compact, every))
    np.testing.assert_allclose(ref_a[["ref_chosen_logps", "ref_rejected_logps"]],
                               ref_b[["ref_chosen_logps", "ref_rejected_logps"]], rtol=1e-5, atol=1e-5)
    for col in ("loss", "logps/chosen", "logps/rejected", "rewards/margins"):
        np.testing.assert_allclose(compact.log[col], every.log[col], rtol=1e-5, atol=1e-5, err_msg=col)
    wa, wb = weights(compact.run_dir), weights(every.run_dir)
    for k in wa:
        torch.testing.assert_close(wa[k], wb[k], atol=5e-5, rtol=1e-4)
