"""A ``last_n`` run's resume checkpoints hold only its trained tensors (#61): the frozen rest is the pinned base that
the resumed run loads again. The resumed run ends with the same weights as an uninterrupted one, for both
objectives, and a checkpoint whose tensors do not match the run's trained parameters is refused, not resumed from
with those tensors silently taken from the base."""
from __future__ import annotations

import pytest
import torch
from safetensors.torch import load_file, save_file

from rmlib.models import load_model
from rmlib.storage.integrity import write_manifest
from rmlib.trained import local_rm_dir
from rmlib.train import train
from rmlib.train.resume import ResumeCheckpointError
from tests.integration.train_support import Crash, marker_config, module_cache, weights  # noqa: F401 (fixture)

LAST_N = dict(n_pairs=32, n_test=8, steps=10, save_every=4, batch_size=4, tuning="last_n", n_layers=1)


@pytest.fixture(autouse=True, scope="module")
def cache(module_cache):
    return module_cache


def _trained_names(base: str, objective: str) -> set[str]:
    """The parameters a last_n run with one layer trains: the last decoder layer, the final norm, and the scalar
    head for Bradley-Terry (DPO keeps the pretrained LM head frozen)."""
    model = load_model(base, head="lm" if objective == "dpo" else "rm", dtype="float32",
                       allow_untrained_head=True).model
    last = len(model.base_model.layers) - 1
    names = {n for n, _ in model.named_parameters()
             if n.startswith(f"model.layers.{last}.") or n == "model.norm.weight"}
    return names | ({"score.weight"} if objective == "bradley_terry" else set())


@pytest.mark.parametrize("objective", ["bradley_terry", "dpo"])
def test_a_last_n_resume_checkpoint_holds_the_trained_tensors_only_and_resumes_exactly(objective):
    """Before: checkpoint-4 held every tensor of the model (the embeddings and all frozen layers)."""
    whole = train(marker_config(f"ln-whole-{objective}", objective=objective, **LAST_N), progress=False)
    name = f"ln-killed-{objective}"
    with pytest.raises(KeyboardInterrupt):
        train(marker_config(name, objective=objective, **LAST_N), progress=False, callbacks=[Crash(6)])
    saved = load_file(str(local_rm_dir(name) / "trainer" / "checkpoint-4" / "model.safetensors"))
    assert set(saved) == _trained_names("tiny-llama", objective)
    resumed = train(marker_config(name, objective=objective, **LAST_N), progress=False)
    assert resumed.resumed_from == 4 and resumed.checkpoints == whole.checkpoints == [4, 8, 10]
    wa, wb = weights(whole.run_dir), weights(resumed.run_dir)
    assert wa.keys() == wb.keys()
    for k in wa:
        torch.testing.assert_close(wa[k], wb[k], atol=1e-5, rtol=1e-4)


def test_a_resume_checkpoint_missing_a_trained_tensor_is_refused():
    """A checkpoint re-hashed after a trained tensor was removed passes its manifest, so the load itself must refuse
    it: the trainer's own load is not strict and would have started that tensor from the base."""
    name = "ln-short"
    with pytest.raises(KeyboardInterrupt):
        train(marker_config(name, **LAST_N), progress=False, callbacks=[Crash(6)])
    ckpt = local_rm_dir(name) / "trainer" / "checkpoint-4"
    tensors = load_file(str(ckpt / "model.safetensors"))
    del tensors["score.weight"]
    save_file(tensors, str(ckpt / "model.safetensors"), metadata={"format": "pt"})
    write_manifest(ckpt, step=4, kind="resume checkpoint")
    with pytest.raises(ResumeCheckpointError, match="score.weight"):
        train(marker_config(name, **LAST_N), progress=False)


@pytest.mark.parametrize("keep", [False, True])
def test_the_last_step_saves_no_resume_checkpoint_unless_they_are_kept(keep):
    """The run exports its last step and marks itself complete right after it, then deletes trainer/: a resume
    checkpoint of that step was written, hashed and deleted unread (#61). It is still exported as a checkpoint, and
    kept when the caller keeps the trainer's checkpoints."""
    from transformers import TrainerCallback

    saved = {}

    class Saved(TrainerCallback):
        def on_save(self, args, state, control, **kw):
            saved[state.global_step] = (local_rm_dir(f"ln-last-{keep}") / "trainer" /
                                        f"checkpoint-{state.global_step}").is_dir()

    run = train(marker_config(f"ln-last-{keep}", **LAST_N), progress=False, callbacks=[Saved()],
                keep_trainer_checkpoints=keep)
    assert saved == {4: True, 8: True, 10: keep}
    assert run.checkpoints == [4, 8, 10] and run.run["complete"]
    assert (run.run_dir / "trainer").is_dir() == keep
