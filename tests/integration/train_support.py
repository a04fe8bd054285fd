"""What the training tests share (test_train.py: Bradley-Terry; test_train_dpo.py: DPO): an isolated rmlib cache per
module, the planted-marker config on a tiny model, a simulated kill, and a run's weights."""
from __future__ import annotations

from safetensors.torch import load_file
from transformers import TrainerCallback
import pytest

from rmlib.models import load_model
from rmlib.train import TrainConfig


@pytest.fixture(scope="module")
def module_cache(tmp_path_factory):
    """RMLIB_CACHE_DIR set to a fresh folder for one test module (trained RMs land in it)."""
    with pytest.MonkeyPatch.context() as mp:
        root = tmp_path_factory.mktemp("rmlib_cache")
        mp.setenv("RMLIB_CACHE_DIR", str(root))
        yield root


def marker_config(name, base="tiny-llama", **kw) -> TrainConfig:
    """A short full-model run on the synthetic marker pairs (a known rule), float32; ``kw`` overrides any field."""
    base_kw = dict(sources=["synthetic_marker"], n_pairs=48, n_test=24, steps=16, batch_size=8, lr=2e-3,
                   max_len=96, tuning="full", save_every=8, dtype="float32", save_dtype="float32")
    return TrainConfig(name=name, base=base, **{**base_kw, **kw})


class Crash(TrainerCallback):
    """Raises KeyboardInterrupt at optimizer step ``at``: a kill in the middle of a run."""
    def __init__(self, at):
        self.at = at

    def on_step_end(self, args, state, control, **kw):
        if state.global_step == self.at:
            raise KeyboardInterrupt("simulated kill")


def weights(run_dir):
    """A finished run's weights as float32 tensors (from its safetensors, or by loading its export)."""
    if (run_dir / "model.safetensors").exists():
        return load_file(str(run_dir / "model.safetensors"))
    return {k: v.float() for k, v in load_model(f"local:{run_dir.name}", dtype="float32").model.state_dict().items()}
