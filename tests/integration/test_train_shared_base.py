"""rmlib.models.shared_base (#61): while a chapter evaluates last_n checkpoints, their base is loaded once and its
frozen tensors are shared. Nothing leaks: two runs trained and evaluated back to back give exactly (float32, bit for
bit) the per-step losses, final weights and evaluation margins of the same sequence with fresh loads; the held base
is never changed by training or evaluation; one base is held at a time; a changed checkpoint is still refused."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import torch

from rmbook.chapters.finetuning import analysis as ft
from rmlib.models import ModelError, load_model, loading, sharing_bases
from rmlib.models import devices, shared_base
from rmlib.storage.integrity import write_manifest
from rmlib.train import score_pairs, train

from tests.integration.train_support import marker_config, weights

@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh rmlib cache per test (the trained RMs land in it), restored after."""
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    return tmp_path


KW = dict(tuning="last_n", n_layers=1, steps=8, save_every=4, n_pairs=32, n_test=16, lr=1e-3)


def _test_pairs(result):
    return pd.read_parquet(result.run_dir / "test_pairs.parquet")


def _evaluate(result) -> list[np.ndarray]:
    """Each checkpoint's margins on the run's held-out pairs (loaded fresh, or from the held base inside
    sharing_bases)."""
    return [score_pairs(load_model(f"local:{result.name}@step{s}", dtype="float32"), _test_pairs(result), 96,
                        progress=False)["margin"].to_numpy() for s in result.checkpoints]


def _sequence(tag: str, shared: bool):
    """Two runs of one tiny base trained back to back, each evaluated at every checkpoint before the next trains
    (a third of another seed, whose tiny base differs), with the base shared or loaded fresh."""
    out = []
    for name, kw in (("a", {}), ("b", {"n_pairs": 24}), ("c", {"seed": 1})):
        result = train(marker_config(f"{tag}-{name}", **{**KW, **kw}), progress=False)
        if shared:
            with sharing_bases():
                margins = _evaluate(result)
        else:
            margins = _evaluate(result)
        out.append((result.log["loss"].to_numpy(dtype=float), weights(result.run_dir), margins))
    return out


def test_runs_and_evaluations_with_a_shared_base_equal_fresh_loads_exactly(cache):
    fresh, shared = _sequence("fresh", False), _sequence("shared", True)
    for (loss_f, w_f, m_f), (loss_s, w_s, m_s) in zip(fresh, shared):
        np.testing.assert_array_equal(loss_s, loss_f)
        assert set(w_s) == set(w_f)
        for name in w_f:
            assert torch.equal(w_s[name], w_f[name]), name
        assert len(m_s) == len(m_f) == 2
        for a, b in zip(m_s, m_f):
            np.testing.assert_array_equal(a, b)


def _count_loads(monkeypatch) -> list:
    calls = []
    tiny = loading.SOURCES["tiny"]

    def counted(spec, *a, **k):
        calls.append(spec.id)
        return tiny.load(spec, *a, **k)
    monkeypatch.setitem(loading.SOURCES, "tiny", replace(tiny, load=counted))
    return calls


def test_the_held_base_is_loaded_once_shared_and_never_changed(cache, monkeypatch):
    """Four checkpoints of two runs read one base; their frozen tensors are the held base's own, their trained ones
    their own; evaluating them and training a run meanwhile leave the held base bit for bit as loaded; another base
    replaces it (one at a time), and leaving the block lets it go."""
    one = train(marker_config("held-1", **KW), progress=False)
    two = train(marker_config("held-2", **{**KW, "n_pairs": 24}), progress=False)
    calls = _count_loads(monkeypatch)
    with sharing_bases():
        first = load_model(f"local:{one.name}@step4", dtype="float32").model
        (held,) = shared_base.held_bases()
        before = {k: v.clone() for k, v in held.state_dict().items()}
        trained = {n for n, p in first.named_parameters() if n.startswith(("score.", "model.layers.1.", "model.norm"))}
        base_params = dict(held.named_parameters())
        for n, p in first.named_parameters():
            assert (p.data_ptr() == base_params[n].data_ptr()) == (n not in trained), n
        _evaluate(one)
        assert calls == ["tiny-llama"], calls
        train(marker_config("held-3", **{**KW, "n_pairs": 16}), progress=False)  # loads its own base
        _evaluate(two)
        assert calls == ["tiny-llama"] * 2, calls
        assert shared_base.held_bases() == [held]
        for k, v in held.state_dict().items():
            assert torch.equal(v, before[k]), k
        other = train(marker_config("held-qwen", base="tiny-qwen2", **KW), progress=False)
        load_model(f"local:{other.name}@step4", dtype="float32")
        assert len(shared_base.held_bases()) == 1 and shared_base.held_bases()[0] is not held
    assert shared_base.held_bases() == []


def test_a_held_base_changed_in_place_is_loaded_again(cache, monkeypatch):
    result = train(marker_config("tripwire", **KW), progress=False)
    fresh = load_model(f"local:{result.name}@step8", dtype="float32").model.state_dict()
    calls = _count_loads(monkeypatch)
    with sharing_bases():
        model = load_model(f"local:{result.name}@step4", dtype="float32").model
        with torch.no_grad():
            model.model.embed_tokens.weight.add_(1.0)  # the held base's own tensor, written by a careless user
        again = load_model(f"local:{result.name}@step8", dtype="float32").model.state_dict()
    assert len(calls) == 2
    for k, v in fresh.items():
        assert torch.equal(again[k], v), k


def test_a_checkpoint_whose_fingerprint_differs_is_refused_with_the_base_held(cache):
    """The fingerprint is computed once per held base, but compared for every checkpoint: one whose recorded
    frozen-weights sha256 is not the base's (its manifest rewritten to match) is refused, as is one whose trained
    tensors changed on disk after it was first read."""
    result = train(marker_config("fingerprint", **KW), progress=False)
    with sharing_bases():
        load_model(f"local:{result.name}@step4", dtype="float32")
        step8 = result.run_dir / "step-8"
        run_file = step8 / "rmlib_run.yaml"
        run_file.write_text(run_file.read_text().replace("frozen_sha256: ", "frozen_sha256: 0"))
        write_manifest(step8, run_hash=result.run["run_hash"], step=8)
        with pytest.raises(ModelError, match="no longer gives the weights"):
            load_model(f"local:{result.name}@step8", dtype="float32")
        weights_file = result.run_dir / "step-4" / "trained.safetensors"
        data = bytearray(weights_file.read_bytes())
        data[-1] ^= 0xFF
        weights_file.write_bytes(bytes(data))
        with pytest.raises(ModelError, match="not the one rmlib exported"):
            load_model(f"local:{result.name}@step4", dtype="float32")


def test_the_chapter_evaluates_the_runs_of_a_base_together_and_returns_them_in_plan_order(cache, monkeypatch):
    """evaluate_runs reads each base once for its checkpoints, though the plan interleaves bases, and its rows keep
    the plan's order. (As on a CPU without bf16 units: the chapter's ``auto`` dtype is then float32, the tiny bases'
    own, so nothing is converted and the bases are shared; in bfloat16 a tiny base, drawn in float32, is loaded
    fresh for each checkpoint, as before.)"""
    monkeypatch.setattr(devices, "cpu_has_bf16_units", lambda: False)
    src = ("synthetic_marker",)  # plan keys: (base, sources, seed, n_pairs), as ft.training_plan makes them
    plan = {("tiny-llama", src, 0, 32): marker_config("plan-llama-a", **KW),
            ("tiny-qwen2", src, 0, 32): marker_config("plan-qwen", base="tiny-qwen2", **KW),
            ("tiny-llama", src, 0, 24): marker_config("plan-llama-b", **{**KW, "n_pairs": 24})}
    runs = {key: train(cfg, progress=False) for key, cfg in plan.items()}
    calls = _count_loads(monkeypatch)
    lexicon = pd.DataFrame({"word": ["love", "war", "peace", "hate"], "category": ["x", "y", "x", "y"]})
    metrics, _ = ft.evaluate_runs(runs, lexicon, every_step=set())
    assert sorted(calls) == ["tiny-llama", "tiny-qwen2"], calls
    assert list(metrics["run"]) == [r.name for r in runs.values()]
    assert shared_base.held_bases() == []


def test_the_reward_lens_reads_the_rms_of_one_base_from_it_held_with_the_parts_of_fresh_loads(cache, monkeypatch):
    """#61: the reward lens reads each RM while its base is held (`read_all`), so the RMs of one base load it once
    (the page's seeds loaded it once each); an RM read from the held base gives exactly (float32) the parts, split
    and frozen-layer identity of fresh loads."""
    from rmbook.chapters.reward_lens import analysis as lens_analysis

    runs = [train(marker_config("lens-a", **KW), progress=False).name,
            train(marker_config("lens-b", **{**KW, "n_pairs": 24}), progress=False).name]
    prompts, words = ["What is the best thing?"], lens_analysis.words_frame(
        {"Agency": ["ing", "er", "es"], "Communion": ["at", "on", "or"]})
    options = dict(dtype="float32", n_tuned_default=1, n_pairs=2, n_resamples=49)
    fresh = [lens_analysis.read_rm(f"local:{r}", prompts, words, check_identity=True, **options) for r in runs]
    held = []
    real = shared_base._Held.__init__
    monkeypatch.setattr(shared_base._Held, "__init__", lambda self, model: held.append(1) or real(self, model))
    _, read = lens_analysis.read_all([], [f"local:{r}" for r in runs], prompts, words, **options)
    assert len(held) == 1  # one base held for both RMs (before: none, each RM loaded its base)
    assert [r["identity"] is not None for r in read] == [True, False]  # the first RM of the base is checked
    for a, b in zip(fresh, read):
        pd.testing.assert_frame_equal(a["parts"], b["parts"])
        assert a["split"] == b["split"]
    assert read[0]["identity"] == fresh[0]["identity"]
