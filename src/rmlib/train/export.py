"""Exported checkpoints: every ``save_every`` steps and at the end, a loadable RM written atomically with hashes.

An export is written to a temporary folder of its own and renamed, so a killed run never exposes a half-written or
untrained model, and it carries a manifest of sha256 hashes that loading checks (:mod:`rmlib.models.local`, which
also owns the format's constants). A ``last_n`` export stores only the trained tensors and a sha256 fingerprint of
the frozen ones, which loading takes from the base (pinned GGUF, seeded tiny model, or a hub revision) and checks:
~120 MB instead of ~1 GB per Qwen-0.5B checkpoint.
"""
from __future__ import annotations

import copy
import errno
import os
import re
import shutil
from pathlib import Path

import yaml

from rmlib.errors import RmlibError
from rmlib.models.local import PARTIAL_WEIGHTS, frozen_weights_sha256
from rmlib.trained import RUN_FILE
from rmlib.registry import get_spec
from rmlib.storage import atomic
from rmlib.storage.integrity import MANIFEST, write_manifest
from rmlib.train.config import DTYPES, stored_tuning

__all__ = ["export", "frozen_part_from_base", "TrainWriteError"]


class TrainWriteError(RmlibError, OSError):
    """A run's file could not be written (a full disk, a read-only cache); nothing partial is left behind."""

    @classmethod
    def of(cls, exc: Exception, path: Path) -> "TrainWriteError":
        """The error for ``exc`` raised while writing ``path``: an OSError, or safetensors' own error, which carries
        the OS's reason only in its text ("I/O error: No space left on device (os error 28)")."""
        code = getattr(exc, "errno", None)
        if code is None:
            found = re.search(r"os error (\d+)", str(exc))
            code = int(found.group(1)) if found else None
        why = (os.strerror(code) if code else None) or getattr(exc, "strerror", None) or str(exc)
        return cls(code, f"cannot write {path}: {why} (is the disk full? free space under {path.parent} and call "
                         "train() again; no partial file was left)")


def frozen_part_from_base(run: dict) -> bool:
    """last_n checkpoints can store only what training changed when the frozen rest is reproducible from the base:
    an embedded (sha256-pinned) or tiny (seeded) model, or a hub model at a pinned revision."""
    if stored_tuning(run) != "last_n":
        return False
    spec = get_spec(run["base_model"])
    return spec.source in ("embedded", "tiny") or (spec.source == "hub" and bool(spec.revision))


def _frozen_fingerprint(model, save_dtype: str) -> str:
    """Hash of the frozen parameters, for checking at load time that the base still gives the same weights."""
    cached = getattr(model, "_rmlib_frozen_sha256", None)
    if cached is None:
        cached = frozen_weights_sha256(model, {n for n, p in model.named_parameters() if p.requires_grad},
                                       DTYPES[save_dtype])
        model._rmlib_frozen_sha256 = cached
    return cached


def export(model, tokenizer, out: Path, run: dict, save_dtype: str) -> None:
    """Save a loadable RM atomically: weights (safetensors), tokenizer with its template, rmlib_run.yaml, and a
    manifest with every file's sha256 (checked whenever the checkpoint is loaded; see rmlib.integrity).

    A last_n checkpoint stores only the trained tensors (`trained.safetensors`) plus a fingerprint of the frozen
    ones, which load_model takes from the base: the fine-tuning chapter's exports then need ~5-6 GB of disk
    (tokenizer copies included) instead of 38 GB. Other tunings store the whole model (LoRA merged), a plain HF
    reward model.
    The files are written into a folder of this process's own (two exports of one name never share a temporary
    folder), then renamed into place.
    """
    from safetensors import SafetensorError

    tmp = atomic.temp_path(out)
    try:
        _write(model, tokenizer, out, tmp, run, save_dtype)
    except (OSError, SafetensorError) as exc:  # a full disk: safetensors says so in its own error type
        raise TrainWriteError.of(exc, out) from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _write(model, tokenizer, out: Path, tmp: Path, run: dict, save_dtype: str) -> None:
    """The files of one export, into ``tmp``, then moved to ``out`` (see :func:`export`)."""
    from peft import PeftModel
    from safetensors.torch import save_file

    m = copy.deepcopy(model).merge_and_unload() if isinstance(model, PeftModel) else model
    os.mkdir(tmp, 0o777)
    if frozen_part_from_base(run):
        trained = {n: p.detach().to("cpu", DTYPES[save_dtype]).contiguous()
                   for n, p in m.named_parameters() if p.requires_grad}
        run = {**run, "weights": "partial", "frozen_sha256": _frozen_fingerprint(m, save_dtype)}
        save_file(trained, str(tmp / PARTIAL_WEIGHTS), metadata={"format": "pt"})
        m.config.save_pretrained(tmp)
    else:
        state = {k: v.detach().to("cpu", DTYPES[save_dtype]) for k, v in m.state_dict().items()}
        from transformers.utils import logging as hf_logging

        was_enabled = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()  # one "Writing model shards" bar per checkpoint is noise
        try:
            m.save_pretrained(tmp, state_dict=state)
        finally:
            if was_enabled:
                hf_logging.enable_progress_bar()
        run = {**run, "weights": "full"}
    tokenizer.save_pretrained(tmp)
    (tmp / RUN_FILE).write_text(yaml.safe_dump(run, sort_keys=False))
    atomic.ordinary_permissions(tmp)  # safetensors writes 0600; a shared cache needs the umask's 0644
    write_manifest(tmp, run_hash=run.get("run_hash"), step=run.get("step"))
    if out.exists():
        # The run root also holds the run's records and step-* folders: replace only the model's files.
        # config.json goes first and comes back last, so a half-replaced model is never loadable, and the
        # manifest makes any mix of old and new files fail its check.
        (out / "config.json").unlink(missing_ok=True)
        for child in [*out.glob("model*.safetensors*"), out / PARTIAL_WEIGHTS, out / MANIFEST]:
            child.unlink(missing_ok=True)
        for child in sorted(tmp.iterdir(), key=lambda c: (c.name == "config.json", c.name == MANIFEST)):
            child.replace(out / child.name)
    else:
        try:
            os.rename(tmp, out)
        except OSError as exc:  # a concurrent export of the same step won: its copy is as good as ours
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise

