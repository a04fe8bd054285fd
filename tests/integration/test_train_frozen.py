"""rmlib.train.frozen (#61): with tuning='last_n' the frozen layers run once per sequence, and training reads their
states. The per-step losses and the trained weights are those of the full forward (float32, within the rounding of
batched kernels), for each tiny architecture; the states are kept in the cache and shared by runs on the same base
and data; a damaged part is never served."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from rmlib.train import train
from rmlib.train.frozen import FrozenStates, FrozenStatesError, frozen_layer_count, serving_frozen_layers

from tests.integration.train_support import marker_config, module_cache, weights  # noqa: F401 (fixture)


def _losses(result) -> np.ndarray:
    return result.log["loss"].to_numpy(dtype=float)


@pytest.mark.parametrize("base", ["tiny-llama", "tiny-qwen2", "tiny-gemma2", "tiny-gemma3"])
def test_training_from_frozen_states_equals_the_full_forward(module_cache, base):
    kw = dict(base=base, tuning="last_n", n_layers=1, lr=1e-3)
    full = train(marker_config(f"full-{base}", frozen_states=False, **kw), progress=False)
    fast = train(marker_config(f"frozen-{base}", **kw), progress=False)
    # the same run computed another way: the flag is not in the run's hash
    assert marker_config("x", frozen_states=False, **kw).run_hash("d") == marker_config("x", **kw).run_hash("d")
    np.testing.assert_allclose(_losses(fast), _losses(full), rtol=1e-5, atol=1e-6)
    a, b = weights(full.run_dir), weights(fast.run_dir)
    assert set(a) == set(b)
    for name in a:
        torch.testing.assert_close(b[name], a[name], rtol=1e-4, atol=1e-5)
    parts = list((module_cache / "frozen").glob("*/*/states.safetensors"))
    assert parts, "the states were not kept in the cache"


def _tiny_rm_with_frozen_bottom(seed=0):
    from rmlib.models.tiny import tiny_model
    model, tok = tiny_model("llama", head="rm", seed=seed)
    model.requires_grad_(False)
    model.model.layers[-1].requires_grad_(True)
    model.score.requires_grad_(True)
    return model.eval(), tok


SEQS = [[5, 9, 11, 40, 3], [5, 9, 12], [7, 8, 9, 10, 11, 12, 13, 3]]


def _batch(seqs, pad):
    width = max(map(len, seqs))
    ids = torch.tensor([s + [pad] * (width - len(s)) for s in seqs])
    return ids, torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs])


def test_the_frozen_layers_are_not_run_while_states_are_served(tmp_path, monkeypatch):
    """Served states stand in for the frozen layers: with those layers' weights then set to NaN, the served forward
    still gives the full forward's scores, and a sequence that was never computed is an error, not a guess."""
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    model, tok = _tiny_rm_with_frozen_bottom()
    pad = tok.pad_token_id
    assert frozen_layer_count(model) == 1
    ids, mask = _batch(SEQS, pad)
    with torch.no_grad():
        want = model(input_ids=ids, attention_mask=mask).logits
    states = FrozenStates(model, 1, pad, {"base": "tiny-llama", "test": 1})
    states.ensure(SEQS)
    with torch.no_grad():
        for p in model.model.layers[0].parameters():
            p.fill_(float("nan"))
        with serving_frozen_layers(states):
            got = model(input_ids=ids, attention_mask=mask).logits
            with pytest.raises(FrozenStatesError, match="no frozen state"):
                model(input_ids=torch.tensor([[1, 2, 3]]), attention_mask=torch.ones(1, 3, dtype=torch.long))
        assert torch.isnan(model(input_ids=ids, attention_mask=mask).logits).all()  # restored after the block
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_states_are_read_from_the_cache_and_a_damaged_part_is_computed_again(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    model, tok = _tiny_rm_with_frozen_bottom()
    identity = {"base": "tiny-llama", "test": 2}
    first = FrozenStates(model, 1, tok.pad_token_id, identity)
    first.ensure(SEQS[:2])
    again = FrozenStates(model, 1, tok.pad_token_id, identity)
    again.ensure(SEQS)  # two stored, one new (stored as a second part)
    assert (again.read, again.computed) == (2, 1)
    for seq in SEQS[:2]:
        assert torch.equal(again.states[tuple(seq)], first.states[tuple(seq)])
    other = FrozenStates(model, 1, tok.pad_token_id, {**identity, "frozen_sha256": "other weights"})
    other.ensure(SEQS)
    assert (other.read, other.computed) == (0, 3)  # other frozen weights never share states
    model.config._attn_implementation = "eager"  # another attention kernel rounds otherwise: its own states
    assert FrozenStates(model, 1, tok.pad_token_id, identity).folder != again.folder
    model.config._attn_implementation = "sdpa"
    part = next(p for p in (tmp_path / "frozen").glob("*/*/states.safetensors") if p.parent.parent == again.folder)
    data = bytearray(part.read_bytes())
    data[-5] ^= 0xFF
    part.write_bytes(bytes(data))
    damaged = FrozenStates(model, 1, tok.pad_token_id, identity)
    damaged.ensure(SEQS)
    assert damaged.computed >= 1 and all(torch.equal(damaged.states[tuple(s)], again.states[tuple(s)]) for s in SEQS)


def test_a_layer_with_dropout_is_not_frozen_for_this_purpose():
    model, _ = _tiny_rm_with_frozen_bottom()
    model.model.layers[0].self_attn.attention_dropout = 0.1
    assert frozen_layer_count(model) == 0


def test_evaluating_checkpoints_reads_the_frozen_states_once(module_cache, monkeypatch):
    """Every checkpoint of a last_n run (and of every run from the same base) has the same frozen layers: the
    held-out pairs' states after them are computed for the first checkpoint only, and the rewards are those of the
    full forward."""
    import contextlib

    from rmlib.models import load_model
    from rmlib.train import evaluate, load_run, score_pairs
    from rmlib.train import frozen as frozen_module

    run = train(marker_config("evalfrozen", tuning="last_n", n_layers=1, lr=1e-3), progress=False)
    test = __import__("pandas").read_parquet(run.run_dir / "test_pairs.parquet")
    made = []
    real = frozen_module.FrozenStates.ensure

    def counting(self, seqs, **kw):
        real(self, seqs, **kw)
        made.append((self.computed, self.read))

    monkeypatch.setattr(frozen_module.FrozenStates, "ensure", counting)
    served = {s: score_pairs(load_model(f"local:{run.name}@step{s}", dtype="float32"), test, 96, progress=False)
              for s in load_run(run.name).checkpoints}
    assert made[0][0] > 0 and all(computed == 0 and read > 0 for computed, read in made[1:]), made
    monkeypatch.setattr(evaluate, "_frozen_layers_served", lambda *a, **k: contextlib.nullcontext())
    for step, got in served.items():
        full = score_pairs(load_model(f"local:{run.name}@step{step}", dtype="float32"), test, 96, progress=False)
        np.testing.assert_allclose(got["margin"], full["margin"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("base", ["tiny-llama", "tiny-gemma3"])
def test_a_dpo_run_and_its_evaluation_read_the_frozen_states_and_equal_the_full_forward(module_cache, monkeypatch,
                                                                                         base):
    """A DPO run with last_n freezes the same layers (its LM head too): training reads their states as a
    Bradley-Terry run does, and scoring its export serves the policy and its reference (the base, whose frozen
    layers are the same weights) from one set of states. Losses, trained weights and the implicit reward's parts
    are those of the full forward (float32, within the rounding of batched kernels)."""
    import contextlib

    import pandas as pd

    from rmlib.models import load_model
    from rmlib.train import evaluate, score_pairs, trainer

    served = []

    def spying(real):
        def serve(states, model=None):
            served.append(type(model if model is not None else states.model).__name__)
            return real(states, model)
        return serve

    kw = dict(base=base, tuning="last_n", n_layers=1, lr=1e-3, objective="dpo", beta=0.1)
    full = train(marker_config(f"dpo-full-{base}", frozen_states=False, **kw), progress=False)
    monkeypatch.setattr(trainer, "serving_frozen_layers", spying(trainer.serving_frozen_layers))
    fast = train(marker_config(f"dpo-frozen-{base}", **kw), progress=False)
    assert len(served) == 1 and served[0].endswith("ForCausalLM"), served  # the run read the states
    np.testing.assert_allclose(_losses(fast), _losses(full), rtol=1e-5, atol=1e-6)
    for col in ("logps/chosen", "logps/rejected", "rewards/margins"):
        np.testing.assert_allclose(fast.log[col], full.log[col], rtol=1e-5, atol=1e-5, err_msg=col)
    a, b = weights(full.run_dir), weights(fast.run_dir)
    for name in a:  # Adam divides by the gradient's root mean square: where that is near 0, a rounding of the
        # gradient moves a weight by a share of lr (1e-3) per step (tiny-gemma3: 1 element of 8,192 by 1.2e-5)
        torch.testing.assert_close(b[name], a[name], rtol=1e-4, atol=5e-5)

    test = pd.read_parquet(fast.run_dir / "test_pairs.parquet")
    served.clear()
    monkeypatch.setattr(evaluate, "serving_frozen_layers", spying(evaluate.serving_frozen_layers))
    got = score_pairs(load_model(fast.model_id, dtype="float32"), test, 96, progress=False)
    assert len(served) == 2, served  # the policy, then its reference
    monkeypatch.setattr(evaluate, "_frozen_layers_served", lambda *a, **k: contextlib.nullcontext())
    want = score_pairs(load_model(fast.model_id, dtype="float32"), test, 96, progress=False)
    for col in ("logp_chosen", "logp_rejected", "ref_logp_chosen", "ref_logp_rejected", "margin"):
        np.testing.assert_allclose(got[col], want[col], rtol=1e-5, atol=1e-5, err_msg=col)
