"""The trainer's resume checkpoints (``<run>/trainer/checkpoint-N/``: model, optimizer, scheduler, RNG and data
position), hashed when written and checked before a resume uses them.

Each one gets a manifest of sha256 hashes (:mod:`rmlib.storage.integrity`) as soon as the trainer has saved it
(:func:`hash_checkpoints`, on ``on_save``). Before resuming, :func:`resume_checkpoint` hashes every byte of the newest
one; a checkpoint that fails (a changed, missing or extra file, an unreadable manifest, or none at all: a run killed
while saving, or an older rmlib) is moved aside into the run folder as ``checkpoint-N.corrupt-<stamp>`` with a
warning that names it, and the next newest intact one is used, or none (the run starts again from step 0). Moving it
out of ``trainer/`` keeps it from the trainer's own rotation of ``checkpoint-*`` folders.

A ``last_n`` run whose frozen part comes from a pinned base (:func:`rmlib.train.export.frozen_part_from_base`) keeps
only its trained tensors in a resume checkpoint (:class:`TrainedPartCheckpoints`), as its exports do: the frozen
rest is the base that the resumed run loads again. Saving and hashing the whole model every ``save_every`` steps had
cost about as much as the steps themselves (9.3 s per checkpoint of Qwen2.5-0.5B, 1.7 s of SmolLM2; #61).
"""
from __future__ import annotations

import warnings
from pathlib import Path

from rmlib.errors import RmlibError
from rmlib.models import CacheWarning
from rmlib.storage import atomic
from rmlib.storage.integrity import check_manifest, write_manifest

__all__ = ["hash_checkpoints", "checkpoint_problems", "resume_checkpoint", "saved_checkpoints", "STATE_FILE",
           "TrainedPartCheckpoints", "ResumeCheckpointError"]

STATE_FILE = "trainer_state.json"  # the trainer writes it last: a checkpoint without it is half-saved


def _step(p: Path) -> int | None:
    tail = p.name.removeprefix("checkpoint-")
    return int(tail) if tail.isdigit() else None


def saved_checkpoints(trainer_dir: Path) -> list[Path]:
    """The fully saved checkpoint-N folders, newest first."""
    done = [p for p in Path(trainer_dir).glob("checkpoint-*")
            if p.is_dir() and _step(p) is not None and (p / STATE_FILE).exists()]
    return sorted(done, key=_step, reverse=True)


def checkpoint_problems(d: Path, full: bool = True) -> list[str]:
    """Why the resume checkpoint `d` cannot be trusted (empty when every file matches the hashes recorded)."""
    return check_manifest(d, full=full, memo=False)


def resume_checkpoint(trainer_dir: Path) -> Path | None:
    """The newest intact resume checkpoint, or None; damaged ones are set aside with a warning (see the module)."""
    trainer_dir = Path(trainer_dir)
    for ckpt in saved_checkpoints(trainer_dir):
        problems = checkpoint_problems(ckpt)
        if not problems:
            return ckpt
        moved = atomic.quarantine(ckpt, into=trainer_dir.parent)
        warnings.warn(f"the resume checkpoint {ckpt} failed its check ({'; '.join(problems[:3])}); it is not "
                      f"used, and was moved to {moved} (delete it once you have looked). Resuming from the last "
                      "intact checkpoint, or from step 0 if there is none.", CacheWarning, stacklevel=2)
    return None


def hash_checkpoints(run_hash: str | None = None):
    """A TrainerCallback that records the sha256 of every file of each resume checkpoint right after the trainer
    saves it, and gives the files the umask's permissions (safetensors and torch.save write 0600)."""
    from transformers import TrainerCallback

    class HashCheckpoints(TrainerCallback):
        def on_save(self, args, state, control, **kw):
            d = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            if d.is_dir():
                atomic.ordinary_permissions(d)
                write_manifest(d, run_hash=run_hash, step=state.global_step, kind="resume checkpoint")

    return HashCheckpoints()


class ResumeCheckpointError(RmlibError, RuntimeError):
    """A resume checkpoint that lacks a trained tensor, or holds one the model does not have: resuming from it would
    silently start those tensors from the base."""


class TrainedPartCheckpoints:
    """A mixin for TRL's trainers: with ``trained_only`` set, a resume checkpoint holds only the parameters that
    train (``requires_grad``), and loading one for a resume checks that every such parameter is in it and nothing
    else is; the rest of the model is the base the run loaded. Set it only where that base is pinned
    (:func:`rmlib.train.export.frozen_part_from_base`). With ``save_last_step`` off, the last step saves none."""

    trained_only = False
    # False: no resume checkpoint at the run's last step. train() exports that step and marks the run complete
    # right after, then deletes trainer/ (unless asked to keep it): the save was never read (#61: up to 3.6 s a run)
    save_last_step = True

    def _save_checkpoint(self, model, trial):
        if not self.save_last_step and self.state.global_step >= self.state.max_steps:
            return None  # the trainer's on_save still follows: the step is exported as a checkpoint
        return super()._save_checkpoint(model, trial)

    def _trained_names(self) -> set[str]:
        return {n for n, p in self.model.named_parameters() if p.requires_grad}

    def _save(self, output_dir=None, state_dict=None):
        if self.trained_only and state_dict is None:
            state_dict = {n: p.detach() for n, p in self.model.named_parameters() if p.requires_grad}
        return super()._save(output_dir, state_dict)

    def _issue_warnings_after_load(self, load_result):
        if not self.trained_only:
            return super()._issue_warnings_after_load(load_result)
        missing = sorted(self._trained_names() & set(load_result.missing_keys))
        if missing or load_result.unexpected_keys:
            raise ResumeCheckpointError(
                f"the resume checkpoint does not match the run's trained parameters (missing: {missing[:3]}, "
                f"unexpected: {list(load_result.unexpected_keys)[:3]}); delete the run's trainer/ folder to start "
                "again from step 0")
        return None
