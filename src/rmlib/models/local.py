"""Reward models that rmlib trained (``local:<name>[@step<N>]``), and any saved model folder (``local:/path``).

An rmlib export carries ``rmlib_run.yaml`` and a manifest of sha256 hashes, checked on every load: a changed file is
refused. A ``last_n`` export stores only the trained tensors (:data:`PARTIAL_WEIGHTS`) and a fingerprint of the
frozen ones, which loading takes from the base model (pinned GGUF, seeded tiny model or pinned hub revision) and
checks. The format is written by :mod:`rmlib.train.export`; the constants here are shared with it.
"""
from __future__ import annotations

import functools
import hashlib
import warnings
from pathlib import Path
from typing import Callable

import torch

from rmlib.models.base import CacheWarning, LoadedModel, LoadOptions, ModelError, Source
from rmlib.models.devices import DTYPE_BY_NAME, dtype_name
from rmlib.models.files import check_config, folder_tokenizer, unreadable_weights
from rmlib.models.hub import from_pretrained_checked
from rmlib.models.shared_base import overlay_base
from rmlib.registry import ModelSpec, get_spec
from rmlib.trained import RUN_FILE, folder_fingerprint
from rmlib.storage.integrity import check_manifest, read_manifest

__all__ = ["PARTIAL_WEIGHTS", "check_checkpoint", "frozen_weights_sha256", "source"]

PARTIAL_WEIGHTS = "trained.safetensors"


def check_checkpoint(spec: ModelSpec, full: bool = True) -> list[str]:
    """Refuse an rmlib-trained checkpoint whose files differ from those it was exported with (sha256 per file).

    Checkpoints exported before rmlib recorded hashes load with a warning; folders that rmlib did not write
    (no rmlib_run.yaml, e.g. a model copied here by hand) cannot be checked and load as they are.
    """
    path = Path(spec.path)
    if not (path / RUN_FILE).exists():
        return []
    if read_manifest(path) is None:
        warnings.warn(f"{spec.id}: {path} was exported by an older rmlib and has no recorded hashes, so it cannot "
                      "be checked; retrain it (train(..., overwrite=True)) to get them", CacheWarning, stacklevel=3)
        return []
    problems = check_manifest(path, full=full)
    if problems:
        raise ModelError(f"{spec.id}: the checkpoint at {path} is not the one rmlib exported "
                         f"({'; '.join(problems[:3])}). Restore it, or retrain with train(..., overwrite=True).")
    return problems


def frozen_weights_sha256(model, exclude: set[str], dtype: torch.dtype) -> str:
    """sha256 over the names and `dtype` bytes of the parameters not in `exclude` (the frozen part of an RM)."""
    h = hashlib.sha256()
    for name, p in model.named_parameters():
        if name in exclude:
            continue
        h.update(name.encode())
        h.update(p.detach().to("cpu", dtype).contiguous().view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def _load_partial(spec: ModelSpec, head: str, dtype: torch.dtype, device: torch.device, trust_remote_code: bool,
                  load_model: Callable[..., LoadedModel]):
    """A last_n checkpoint: the base's weights with the trained tensors laid over them, checked by fingerprint.
    A Bradley-Terry run's base is loaded with a scalar head; a DPO run's (an implicit RM) as a causal LM.
    ``load_model``: how the base is loaded, like any other model (:func:`rmlib.models.loading.load_model`, which
    passes itself, so this module need not import the loader that imports it)."""
    from safetensors.torch import load_file

    meta, path = spec.extra, Path(spec.path)
    base_spec = get_spec(meta["base_model"])
    save_dtype = DTYPE_BY_NAME[meta.get("save_dtype", "bfloat16")]
    # Tiny bases are seeded random draws made in float32 at training time. Others load directly in the asked dtype
    # when rounding it to save_dtype gives the fingerprinted bytes (float32, or save_dtype itself), else in float32.
    base_dtype = dtype if base_spec.source != "tiny" and dtype in (torch.float32, save_dtype) else torch.float32
    with unreadable_weights(spec.id, path):
        trained = load_file(str(path / PARTIAL_WEIGHTS))
    # inside shared_base.sharing_bases(), a copy of the base held for all its checkpoints (frozen tensors shared)
    model, frozen_sha256 = overlay_base(
        meta["base_model"], dict(head=head, dtype=dtype_name(base_dtype), device="cpu",
                                 trust_remote_code=trust_remote_code, allow_untrained_head=True,
                                 seed=meta.get("seed", 0)),
        set(trained), load_model, frozen_weights_sha256, shareable=base_dtype == dtype and device.type == "cpu")
    params = dict(model.named_parameters())
    unknown = sorted(set(trained) - set(params))
    no_head = head == "rm" and not any(k.startswith(("score.", "classifier.")) for k in trained)
    if unknown or no_head or not trained:
        raise ModelError(f"{spec.id}: {path / PARTIAL_WEIGHTS} does not fit {meta['base_model']} "
                         f"(unknown tensors {unknown[:3]}, or no reward head); retrain the run")
    got = frozen_sha256(save_dtype)
    if got != meta.get("frozen_sha256"):
        raise ModelError(f"{spec.id}: the base {meta['base_model']!r} no longer gives the weights this checkpoint was "
                         f"trained on (frozen-weights sha256 {got[:12]} vs {str(meta.get('frozen_sha256'))[:12]}). "
                         "Restore that base version or retrain the run.")
    with torch.no_grad():
        for name, t in trained.items():
            params[name].copy_(t.to(params[name].dtype))
    return model.to(device=device, dtype=dtype).eval(), folder_tokenizer(path, spec.id, trust_remote_code)


def _tokenizer(spec: ModelSpec, trust_remote_code: bool):
    return folder_tokenizer(Path(spec.path), spec.id, trust_remote_code)


def _load(spec: ModelSpec, head: str, options: LoadOptions, device, dtype, load_model: Callable[..., LoadedModel]):
    check_checkpoint(spec)
    check_config(Path(spec.path), spec.id)
    if spec.extra.get("weights") == "partial":
        if head != spec.kind:
            other = "a causal LM (an implicit RM): load it with head='lm'" if spec.kind == "lm" else \
                f"a reward model; load its base {spec.extra['base_model']!r} for head='lm'"
            raise ModelError(f"{spec.id} is {other}")
        model, tok = _load_partial(spec, head, dtype, device, options.trust_remote_code, load_model)
        return model, tok, []
    tok = _tokenizer(spec, options.trust_remote_code)
    model, fresh = from_pretrained_checked(spec.path, spec, head, options, device, dtype)
    return model, tok, fresh


def _revision(spec: ModelSpec, model) -> str:
    """The folder's content fingerprint (:func:`rmlib.trained.folder_fingerprint`), for cache keys."""
    return folder_fingerprint(spec.id, spec.path)


def source(load_model: Callable[..., LoadedModel]) -> Source:
    """The local source, given the loader its partial checkpoints load their base with."""
    return Source(tokenizer=_tokenizer, load=functools.partial(_load, load_model=load_model), revision=_revision)
