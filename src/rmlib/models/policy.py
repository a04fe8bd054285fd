"""What rmlib refuses to do unless asked: run a model's own code (only at a pinned commit), read pickle weights.

transformers is always given an explicit True/False for remote code, so it never stops to ask y/N (which hangs a
kernel); a model that ships only pickle files (which can run code when read) needs ``allow_pickle``.
"""
from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

from rmlib.models.base import ModelError, RemoteCodeError
from rmlib.models.native_rms import NATIVE_ARCHITECTURES
from rmlib.registry import ModelSpec

__all__ = ["check_remote_code", "has_own_code", "pickle_refused", "quiet_transformers"]

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
def has_own_code(folder: Path) -> bool:
    """A local folder whose config or tokenizer config maps to Python files of its own (auto_map) that would run:
    not a model whose architecture rmlib implements itself (:data:`rmlib.models.native_rms.NATIVE_ARCHITECTURES`),
    whose code is never loaded."""
    for name in ("config.json", "tokenizer_config.json"):
        try:
            cfg = json.loads((folder / name).read_text())
        except (FileNotFoundError, ValueError, TypeError):
            continue
        if not isinstance(cfg, dict) or "auto_map" not in cfg:
            continue
        native = name == "config.json" and set(cfg.get("architectures") or []) & set(NATIVE_ARCHITECTURES)
        if not native or set(cfg["auto_map"]) - {"AutoModelForSequenceClassification", "AutoModel"}:
            return True
    return False


def check_remote_code(spec: ModelSpec, trust_remote_code: bool) -> None:
    """The one opt-in for a model's own code, for hub and local models alike; hub code only at a pinned commit.

    transformers is always given an explicit True/False, so it never stops to ask y/N (which hangs a kernel).
    """
    own_code = spec.trust_remote_code or (spec.source == "local" and has_own_code(Path(spec.path)))
    if own_code and not trust_remote_code:
        where = "the model hub" if spec.source == "hub" else spec.path
        raise RemoteCodeError(
            f"{spec.id} runs its own Python code from {where} (auto_map / its registry entry says trust_remote_code). "
            "rmlib never enables that implicitly. Read the code first, then opt in with "
            "load_model(..., trust_remote_code=True), `rmlib sweep --trust-remote-code`, or, for a chapter, its "
            f"TRUST_REMOTE_CODE parameter (make chapter ... TRUST_REMOTE_CODE='[\"{spec.id}\"]').")
    if trust_remote_code and spec.source == "hub" and not _COMMIT.match(spec.revision or ""):
        raise RemoteCodeError(
            f"{spec.id}: hub code runs only at a pinned commit, and {spec.id} has none "
            f"(revision {spec.revision or 'main'!r} can change under you). Read the code at one commit on the "
            "model's hub page ('Files and versions' > 'History'), then pin its 40-hex id: "
            "load_model(..., trust_remote_code=True, revision='<commit>') or "
            "`rmlib sweep --trust-remote-code --revision <commit>` (or add `revision:` to its registry entry).")


def _missing_shards(spec: ModelSpec, exc: Exception) -> str | None:
    """Why a load that failed on a safetensors file did: the shards a sharded checkpoint's index names that are not
    there (a local folder's ``model.safetensors.index.json``; else the file the error names), or None. Not a pickle
    question: the checkpoint has safetensors weights, one of them is missing (#62)."""
    folder = Path(spec.path) if spec.source == "local" and spec.path else None
    index = folder / "model.safetensors.index.json" if folder is not None else None
    if index is not None and index.is_file():
        try:
            named = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
        except (ValueError, UnicodeDecodeError, KeyError, TypeError, AttributeError):
            return f"{index} is damaged (not the JSON of a weight map); copy it again"
        gone = [n for n in named if not (folder / n).is_file()]
        if gone:
            return (f"{index} names {len(named)} shards, and {folder} lacks {len(gone)} of them: "
                    f"{', '.join(gone)}; copy the missing shard(s) again")
    found = re.search(r"No such file or directory: '?([^'\s)]+\.safetensors)", str(exc))
    return f"{found[1]} is missing; copy the model's weight files again" if found else None


@contextlib.contextmanager
def pickle_refused(spec: ModelSpec):
    try:
        yield
    except OSError as exc:
        if "safetensors" not in str(exc).lower():
            raise
        if (missing := _missing_shards(spec, exc)) is not None:
            raise ModelError(f"{spec.id}: its weights are incomplete: {missing}") from None
        raise ModelError(f"{spec.id} ships no safetensors weights, only pickle files (.bin/.pt), and reading a "
                         "pickle can run code. rmlib reads safetensors only unless you opt in: "
                         "load_model(..., allow_pickle=True) or `rmlib sweep --allow-pickle`, for files you trust. "
                         f"({exc})") from None


@contextlib.contextmanager
def quiet_transformers():
    from transformers.utils import logging as hf_logging
    before = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(before)
