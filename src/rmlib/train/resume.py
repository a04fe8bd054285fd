"""The trainer's resume checkpoints (``<run>/trainer/checkpoint-N/``: model, optimizer, scheduler, RNG and data
position), hashed when written and checked before a resume uses them.

Each one gets a manifest of sha256 hashes (:mod:`rmlib.storage.integrity`) as soon as the trainer has saved it
(:func:`hash_checkpoints`, on ``on_save``). Before resuming, :func:`resume_checkpoint` hashes every byte of the newest
one; a checkpoint that fails (a changed, missing or extra file, an unreadable manifest, or none at all: a run killed
while saving, or an older rmlib) is moved aside into the run folder as ``checkpoint-N.corrupt-<stamp>`` with a
warning that names it, and the next newest intact one is used, or none (the run starts again from step 0). Moving it
out of ``trainer/`` keeps it from the trainer's own rotation of ``checkpoint-*`` folders.
"""
from __future__ import annotations

import warnings
from pathlib import Path

from rmlib.models import CacheWarning
from rmlib.storage import atomic
from rmlib.storage.integrity import check_manifest, write_manifest

__all__ = ["hash_checkpoints", "checkpoint_problems", "resume_checkpoint", "saved_checkpoints", "STATE_FILE"]

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
