"""rmlib.train on tiny random models and synthetic pairs with a known rule: learning, resuming, checkpoints, partial exports."""
from __future__ import annotations

from safetensors.torch import load_file
import pandas as pd
import pytest
import torch

from rmbook.chapters.finetuning.analysis import evaluate_run
from rmlib.engine import sweep
from rmlib.models import LoadOptions, ModelError, load_model
from rmlib.registry import get_spec
from rmlib.trained import local_rm_dir
from rmlib.train import TrainConfigError, train
from transformers import TrainerCallback
from tests.integration.train_support import Crash, marker_config, module_cache, weights  # noqa: F401 (fixture)


LEXICON = pd.DataFrame({"word": ["peace", "hope", "joy", "war", "fear", "pain"],
                        "category": ["good", "good", "good", "bad", "bad", "bad"]})


@pytest.fixture(autouse=True, scope="module")
def cache(module_cache):
    return module_cache


cfg = marker_config


@pytest.fixture(scope="module")
def llama_run(cache):
    return train(cfg("marker-llama"), progress=False)


def test_learns_the_marker_rule(llama_run):
    log = llama_run.log
    assert len(log) == 16 and log["step"].tolist() == list(range(1, 17))
    assert log["loss"].head(4).mean() > 2 * log["loss"].tail(4).mean(), log["loss"].tolist()
    metrics, profile = evaluate_run("marker-llama", lexicon=LEXICON, progress=False, load=LoadOptions(dtype="float32"))
    assert metrics["step"].tolist() == [8, 16]
    final = metrics.set_index("step").loc[16]
    # the held-out split is whole prompts: at most n_test pairs, all of them scored
    assert final["n_test"] == llama_run.run["n_test"] >= 16 and final["accuracy"] >= 0.9, metrics.T
    assert final["reward_var_raw"] > 0 and 0 < final["reward_var_whitened"] <= 1.0 + 1e-9
    # the marker word is what the RM learnt to reward: 'good' words (peace is the marker) rank higher on median
    pos = profile[(profile.step == 16) & (profile.prompt_label == "positive")].set_index("category")
    assert set(pos.index) == {"good", "bad"} and (pos["n_words"] == 3).all()
    assert (profile["reward_kind"] == "RM score").all()


def test_held_out_split_is_disjoint_and_recorded(llama_run):
    test = pd.read_parquet(llama_run.run_dir / "test_pairs.parquet")
    order = llama_run.data_order
    assert len(test) == llama_run.run["n_test"] and set(test["pair_id"]).isdisjoint(order["pair_id"])
    assert llama_run.run["data_hash"] != llama_run.run["test_hash"]
    for key in ("base_model", "sources", "n_pairs", "data_hash", "seed", "steps", "lr", "max_len", "truncation",
                "rmlib_version"):
        assert key in llama_run.run


def test_two_bases_get_identical_data_order_and_steps(llama_run):
    qwen = train(cfg("marker-qwen", base="tiny-qwen2"), progress=False)
    assert qwen.run["data_hash"] == llama_run.run["data_hash"]
    assert qwen.steps == llama_run.steps == 16 and qwen.checkpoints == llama_run.checkpoints == [8, 16]
    pd.testing.assert_frame_equal(qwen.data_order, llama_run.data_order)
    assert len(qwen.data_order) == 16 * 8
    # the batches the trainer actually consumed are the recorded order
    a = pd.read_csv(qwen.run_dir / "consumed_from_0.csv")
    b = pd.read_csv(llama_run.run_dir / "consumed_from_0.csv")
    assert len(a) == len(qwen.data_order) and a["pair_index"].tolist() == b["pair_index"].tolist()
    assert (a.groupby("batch").size() == 8).all()
    assert qwen.log["loss"].notna().all() and len(qwen.log) == 16


def test_resume_after_kill_matches_uninterrupted_run():
    short = dict(n_pairs=32, n_test=8, steps=10, save_every=4, batch_size=4)
    whole = train(cfg("resume-a", **short), progress=False)
    with pytest.raises(KeyboardInterrupt):
        train(cfg("resume-b", **short), progress=False, callbacks=[Crash(6)])
    assert not (local_rm_dir("resume-b") / "config.json").exists()  # no final model after the kill
    with pytest.raises(ModelError):
        get_spec("local:resume-b")
    resumed = train(cfg("resume-b", **short), progress=False)
    assert resumed.resumed_from == 4
    assert resumed.checkpoints == whole.checkpoints == [4, 8, 10]
    wa, wb = weights(whole.run_dir), weights(resumed.run_dir)
    assert wa.keys() == wb.keys()
    for k in wa:
        torch.testing.assert_close(wa[k], wb[k], atol=1e-5, rtol=1e-4)
    # a finished run is reused, not retrained; a different config under the same name is refused
    again = train(cfg("resume-b", **short), progress=False)
    assert again.resumed_from is None and again.steps == 10
    with pytest.raises(TrainConfigError, match="different run"):
        train(cfg("resume-b", **{**short, "lr": 1e-4}), progress=False)


def test_checkpoint_loads_as_local_rm_and_sweeps(llama_run):
    lm = load_model(llama_run.step_id(8), dtype="float32")
    assert lm.head == "rm" and not lm.untrained_head and lm.spec.source == "local"
    assert lm.spec.extra["base_model"] == "tiny-llama" and lm.spec.extra["step"] == 8
    res = sweep(llama_run.step_id(8), "What is the best thing in the world?", tokens=slice(0, 40), progress=False,
                load=LoadOptions(dtype="float32"))
    assert len(res.frame) == 40 and res.frame["score"].notna().all() and res.frame["score"].std() > 0
    assert get_spec(llama_run.model_id).extra["step"] == 16
    # the run hash is the revision, so caches keyed by (id, revision) cannot serve a retrained name stale results
    assert lm.spec.revision == lm.spec.extra["run_hash"] and lm.revision != "main"
    with pytest.raises(ModelError):  # nothing untrained is ever exposed
        get_spec(f"local:{llama_run.name}@step0")


@pytest.mark.parametrize("tuning", ["last_n", "lora"])
def test_partial_tunings_train_only_their_parameters_and_export_plain_rms(tuning):
    r = train(cfg(f"tuning-{tuning}", base="tiny-qwen2", n_pairs=16, n_test=8, steps=2, batch_size=4, lr=1e-2,
                  tuning=tuning, n_layers=1, save_every=2, dtype="bfloat16"), progress=False)
    init = load_model("tiny-qwen2", head="rm", dtype="float32", allow_untrained_head=True, seed=0).model.state_dict()
    w = weights(r.run_dir)
    assert w.keys() == init.keys()  # LoRA is merged: the export is a plain *ForSequenceClassification RM
    changed = {k for k in w if not torch.allclose(w[k], init[k])}
    assert "score.weight" in changed and "model.embed_tokens.weight" not in changed
    if tuning == "last_n":
        assert changed and all(k.startswith(("model.layers.1.", "model.norm", "score")) for k in changed), changed
        # only the trained tensors are stored; the frozen rest comes from the (seeded) base at load time
        stored = load_file(str(r.run_dir / "step-2" / "trained.safetensors"))
        assert not (r.run_dir / "step-2" / "model.safetensors").exists()
        assert changed <= set(stored) and all(k.startswith(("model.layers.1.", "model.norm", "score")) for k in stored)
    else:
        assert (r.run_dir / "step-2" / "model.safetensors").exists()  # merged LoRA: a plain HF reward model
    if tuning == "lora":
        assert any(k.startswith("model.layers.0.") for k in changed)
        assert not any("norm" in k for k in changed)  # LoRA adapts linear layers only


def test_partial_checkpoint_refuses_a_base_that_changed(monkeypatch):
    """A last_n checkpoint keeps a fingerprint of the frozen weights it was trained on; another base is refused."""
    import rmlib.models.tiny

    r = train(cfg("partial-fp", base="tiny-qwen2", n_pairs=16, n_test=8, steps=2, batch_size=4, tuning="last_n",
                  n_layers=1, save_every=2, dtype="float32"), progress=False)
    ok = load_model(r.step_id(2), dtype="float32")
    assert not ok.untrained_head and ok.spec.extra["weights"] == "partial"
    real = rmlib.models.tiny.tiny_model
    # the tiny base now draws other weights (as a new rmlib version or another GGUF would give)
    monkeypatch.setattr(rmlib.models.tiny, "tiny_model", lambda family, head="rm", seed=0, dtype=torch.float32:
                        real(family, head=head, seed=seed + 1, dtype=dtype))
    with pytest.raises(ModelError, match="no longer gives the weights"):
        load_model(r.step_id(2), dtype="float32")


def test_training_reports_its_steps_to_the_book_progress_file(tmp_path, monkeypatch):
    """`make book` echoes a chapter's progress file; training writes its steps there (never to the page)."""
    from rmlib import config
    path = tmp_path / "progress.txt"
    monkeypatch.setenv(config.PROGRESS_FILE_ENV, str(path))
    monkeypatch.setenv("TQDM_DISABLE", "1")
    train(cfg("progress-file", base="tiny-qwen2", n_pairs=16, n_test=8, steps=3, batch_size=4, save_every=3),
          progress=False)
    last = config.latest_progress(path)
    assert last is not None and last.startswith("training progress-file") and "3/3" in last


# ---------------------------------------------------------------- issue #24 item 5: a run that diverges

class _Poison(TrainerCallback):
    """Sets one trained weight to NaN after optimizer step ``at`` (a run whose weights went non-finite)."""
    def __init__(self, at):
        self.at = at

    def on_step_end(self, args, state, control, model=None, **kw):
        if state.global_step == self.at:
            with torch.no_grad():
                next(p for p in model.parameters() if p.requires_grad).view(-1)[0] = float("nan")


def _assert_nothing_exported_after(run_dir, step):
    import yaml
    assert not (run_dir / "model.safetensors").exists() and not (run_dir / "rmlib_run.yaml").exists()
    assert yaml.safe_load((run_dir / "run.yaml").read_text())["complete"] is False
    exported = sorted(int(p.name.split("-")[1]) for p in run_dir.glob("step-*") if (p / "config.json").exists())
    assert all(s < step for s in exported)
    for s in exported:  # what was exported before the divergence is finite
        assert all(torch.isfinite(t).all() for t in load_file(str(run_dir / f"step-{s}" / "model.safetensors")).values())


def test_a_run_whose_loss_goes_non_finite_stops_and_exports_nothing():
    from rmlib.train.trainer import TrainingDiverged
    with pytest.raises(TrainingDiverged, match=r"diverged at step \d+: the (loss is nan|loss is inf|weight .* NaN)"):
        train(cfg("diverged-lr", lr=1e30, steps=6, save_every=1), progress=False)
    run_dir = local_rm_dir("diverged-lr")
    _assert_nothing_exported_after(run_dir, 1 + max([0] + [int(p.name.split("-")[1]) for p in run_dir.glob("step-*")]))
    with pytest.raises(ModelError):
        load_model("local:diverged-lr", dtype="float32")


def test_a_run_whose_weights_go_non_finite_stops_before_that_steps_checkpoint():
    from rmlib.train.trainer import TrainingDiverged
    with pytest.raises(TrainingDiverged, match=r"diverged at step 4: the weight .* NaN or infinite"):
        train(cfg("diverged-nan", steps=8, save_every=2), progress=False, callbacks=[_Poison(4)])
    run_dir = local_rm_dir("diverged-nan")
    _assert_nothing_exported_after(run_dir, 4)
    assert (run_dir / "step-2" / "config.json").exists()
