"""Where a sweep's or an answer set's result lives in the cache, and how it is opened, resumed and published.

The key (:func:`rmlib.storage.sweep_key`) holds every setting that can change a score; the folder it names holds
self-certifying shards (:class:`rmlib.storage.ShardStore`). A result is served only when every byte checks out; a
damaged shard is moved aside with a warning and recomputed. ``cache=False`` computes a fresh folder beside the old
one and swaps it in with one rename.
"""
from __future__ import annotations

import hashlib
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from rmlib import __version__, config
from rmlib.engine.checks import SweepError
from rmlib.models import CacheWarning, LoadedModel
from rmlib.storage import CorruptShardError, ShardStore, atomic

__all__ = ["SweepResult", "model_settings", "dated_fields", "run_fields", "open_store", "finish", "check_cache_root",
           "cache_parent", "digest"]


@dataclass
class SweepResult:
    frame: pd.DataFrame
    meta: dict
    cached: bool


def model_settings(lm: LoadedModel) -> dict:
    """Loading settings that change what is computed: the attention kernel (Gemma-2 needs eager for its
    soft-capping) and how the score is read."""
    return {"attention": getattr(lm.model.config, "_attn_implementation", None), "score_read": lm.reader}


def dated_fields(template: str, slots) -> dict:
    """Key fields for a chat template that stamps the date it is rendered on (Llama-3.2's ``strftime_now``): the
    rendered ids, so a sweep cached on one day is never served for the other conversation another day renders. Empty
    for every other template, whose keys stay as they were (the template's hash says it all)."""
    if "strftime_now" not in template:
        return {}
    return {"rendered": digest([t for s in slots for t in (*s.prefix_ids, -1, *s.suffix_ids, -2)])}


def run_fields(lm: LoadedModel, batch_size) -> dict:
    """How a shard was computed without changing what was computed (recorded per shard, not in the key)."""
    import transformers
    return {"batch_size": batch_size, "device": lm.device.type, "rmlib_version": __version__,
            "torch_version": torch.__version__, "transformers_version": transformers.__version__,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def _cached_frame(store: ShardStore) -> pd.DataFrame | None:
    """The verified cached result, or None. A shard that fails its hash is moved aside, named in a warning, and
    recomputed by the caller (the rest are kept)."""
    if not store.complete:
        return None
    try:
        return store.load()
    except CorruptShardError as exc:
        warnings.warn(f"{exc}; recomputing them", CacheWarning, stacklevel=3)
        return None


def open_store(parent: Path, key: str, meta: dict, cache: bool) -> tuple[ShardStore, pd.DataFrame | None]:
    """The store to fill, or the cached result. cache=False computes everything afresh beside the old result,
    which publish() then replaces in one rename (a kill meanwhile leaves the old result served)."""
    parent.mkdir(parents=True, exist_ok=True)
    atomic.remove_orphans(parent)  # folders of killed cache=False runs
    target = parent / key
    if not cache:
        store = ShardStore(atomic.temp_path(target), meta)
        store.prepare()
        return store, None
    store = ShardStore(target, meta)
    df = _cached_frame(store)
    if df is None:
        store.prepare()
    return store, df


def finish(store: ShardStore, target: Path, n_shards: int, n_rows: int) -> pd.DataFrame:
    store.mark_complete(n_shards, n_rows)
    if store.root != target:
        store.publish_to(target)
    return store.load()


def check_cache_root(cache_root):
    """``cache_root`` itself, unless it is an empty or blank string (refused: ``Path('')`` is the current folder)."""
    if isinstance(cache_root, str) and not cache_root.strip():
        raise SweepError(f"cache_root is {cache_root!r}, which would mean the current folder: give a folder, or None "
                         "for the cache under $RMLIB_CACHE_DIR")
    return cache_root


def cache_parent(cache_root, default: str) -> Path:
    """``cache_root`` when given, else ``<cache dir>/<default>`` (sweeps/ or answers/). A ``cache_root`` that is a
    file, or lies under one, is refused with a message that names it (not a raw FileExistsError later); so is an
    empty string, which would be the current folder (a cache written wherever the caller happens to stand)."""
    path = Path(check_cache_root(cache_root)) if cache_root is not None else config.cache_dir() / default
    for p in (path, *path.parents):
        if p.exists():
            if not p.is_dir():
                what = "is a file" if p == path else f"lies under {p}, which is a file"
                raise SweepError(f"cache_root {str(path)!r} {what}, not a folder: give a folder (it is created "
                                 "if missing)")
            break
    return path


def digest(ids: np.ndarray) -> str:
    """16 hex digits of the sha256 of the candidate ids (int64): the key's record of exactly which ids were scored."""
    return hashlib.sha256(np.ascontiguousarray(ids, dtype=np.int64).tobytes()).hexdigest()[:16]
