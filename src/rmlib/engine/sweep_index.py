"""Serve a cached sweep without loading its model.

A sweep's cache key (:func:`rmlib.engine.token_sweep.sweep`) holds facts only a loaded model knows (its template
hash, dtype, attention kernel, the candidate ids), so finding the cached result used to cost a full model load:
about 55 s per chapter that reads four cached sweeps. This index maps a *request* (model id, its registry entry, a
fingerprint of its weights that needs no loading, the prompt, the tokens, the loading options and the library
versions) to the key of the sweep that request produced, and is written only after that sweep was computed or
served. A hit is served only when the result checks out as the storage layer checks every cached result (every
shard's sha256, :class:`rmlib.storage.ShardStore`), with the same key and candidate ids; anything else, including
a damaged or missing index entry, falls back to loading the model and sweeping (which then recomputes only what is
damaged).

Only models whose weights can be fingerprinted without loading them use the index: embedded GGUFs (the file's
sha256), ``local:`` folders (their files' content sha256s, kept per file state, :func:`rmlib.storage.integrity.content_sha256`)
and hub models pinned to a revision. Tiny random models (their fingerprint is a hash of weights built in memory; they load in a second anyway)
and unpinned hub models always load.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import asdict
from importlib import metadata
from pathlib import Path

from rmlib import __version__, config
from rmlib.engine.store import SweepResult, _cached_frame, cache_parent, check_cache_root, digest
from rmlib.engine.tokens import tokens_arg
from rmlib.models import CacheWarning
from rmlib.models import LoadOptions
from rmlib.models import SOURCES
from rmlib.models.devices import dtype_name, resolve_device, resolve_dtype
from rmlib.registry import spec_at
from rmlib.storage import CorruptShardError, ShardStore, atomic, sweep_key

__all__ = ["request_key", "fingerprint", "stands_for", "lookup", "record", "index_dir", "listed"]


def index_dir(cache_root=None) -> Path:
    """Where request → sweep-key entries live: beside the cache's sweeps (one small JSON file per request), or, for
    sweeps kept in another folder (``cache_root``), in that folder's ``.requests``."""
    default = config.cache_dir() / "sweeps"
    check_cache_root(cache_root)
    if cache_root is None or Path(cache_root).resolve() == default.resolve():
        return config.cache_dir() / "sweep_requests"
    return Path(cache_root) / ".requests"


def fingerprint(spec, options) -> str | None:
    """What identifies the weights ``spec`` names without loading them, or None when nothing cheap does."""
    if spec.source == "tiny":
        return None
    if spec.source == "hub":
        return options.revision or spec.revision or None
    try:
        return SOURCES[spec.source].revision(spec, None)
    except Exception:  # noqa: BLE001 - no fingerprint means no shortcut, never a wrong answer
        return None


def _tokens_field(tokens):
    tokens = tokens_arg(tokens)  # a string or a float id is refused here, with what to give instead
    if tokens is None:
        return None
    if isinstance(tokens, slice):
        return ["slice", tokens.start, tokens.stop, tokens.step]
    return ["ids", digest([int(t) for t in tokens])]


def request_key(model, prompt: str, tokens=None, load=None, mode: str = "id_exact") -> str | None:
    """The index key of one ``token_rewards`` request (or a plan's sweep job, which may also give a ``mode``), or
    None when it cannot be served without loading (a LoadedModel was given, or the model has no cheap
    fingerprint)."""
    if not isinstance(model, str):
        return None

    options = LoadOptions.of(load)
    spec = spec_at(model, options.revision)
    fp = fingerprint(spec, options)
    if fp is None:
        return None
    versions = {p: metadata.version(p) for p in ("torch", "transformers")}
    device = resolve_device(options.device)
    # ``auto`` on a CPU is bfloat16 only where the CPU has bf16 units (resolve_dtype), float32 elsewhere: the other
    # precision is keyed, so a cache shared by both kinds of machine never serves one's scores to the other (auto
    # meant bfloat16 on every CPU before, and the keys written then stay valid where it still does)
    auto = (dtype_name(resolve_dtype(spec, device, options.dtype))
            if options.dtype in (None, "auto") and device.type != "cuda" else "bfloat16")
    return sweep_key({"request": model, "spec": asdict(spec), "fingerprint": fp, "prompt": prompt,
                      "tokens": _tokens_field(tokens), "load": asdict(options),
                      "device": device.type, "rmlib": __version__, **versions,
                      **({"auto_dtype": auto} if auto != "bfloat16" else {}),
                      **({"mode": mode} if mode != "id_exact" else {})})  # id_exact: the keys as they were


def stands_for(model, prompt: str, load=None) -> dict:
    """What a request is for, as its sweep's meta records it: the model's registry id and the prompt. An index entry
    is served only for the request it was written for (:func:`lookup`), and only when the sweep it points to is of
    that model and prompt, so an entry copied over another (or a key reused) cannot answer for another request."""
    return {"model": spec_at(model, LoadOptions.of(load).revision).id, "prompt": prompt}


def _entry(request: str, cache_root, expect: dict | None = None) -> dict | None:
    """The index entry of ``request``, or None: missing, damaged, written for another request (its ``request``
    field; entries from before it was recorded are not served), or for another model or prompt than ``expect``."""
    try:
        entry = json.loads((index_dir(cache_root) / f"{request}.json").read_text())
        entry = {k: entry[k] for k in ("request", "model", "prompt", "key", "head", "candidates")}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if entry["request"] != request or (expect is not None and {k: entry[k] for k in expect} != expect):
        return None
    return entry


def lookup(request: str, cache_root=None, expect: dict | None = None) -> tuple[SweepResult, str] | None:
    """(the cached sweep, the model's head) for ``request``, verified byte for byte, or None. ``expect``: what the
    request stands for (:func:`stands_for`); the entry and the sweep's own meta must both say so."""
    entry = _entry(request, cache_root, expect)
    if entry is None:
        return None
    key, head, candidates = entry["key"], entry["head"], entry["candidates"]
    df = _cached_frame(ShardStore(cache_parent(cache_root, "sweeps") / key, {}))
    meta = df.attrs.get("rmlib", {}) if df is not None else {}
    if (df is None or meta.get("key") != key or digest(df["token_id"].to_numpy()) != candidates
            or (meta.get("model"), meta.get("prompt")) != (entry["model"], entry["prompt"])):
        return None
    return SweepResult(df, df.attrs["rmlib"], cached=True), head


def listed(request: str | None, cache_root=None, expect: dict | None = None) -> bool:
    """Whether ``request`` maps to a complete result in the cache whose every shard's sha256 checks out, with the
    key, candidate ids, model and prompt the index recorded (no frame is built: a listing,
    :func:`rmlib.engine.plan_status`). A damaged shard is moved aside with a warning, as any read of it does, and
    the request is not listed."""
    entry = _entry(request, cache_root, expect) if request is not None else None
    if entry is None:
        return False
    folder = cache_parent(cache_root, "sweeps") / entry["key"]
    store = ShardStore(folder, {})
    try:
        meta = json.loads((folder / "meta.json").read_text())
        if (not store.complete or meta.get("key") != entry["key"] or meta.get("candidates") != entry["candidates"]
                or (meta.get("model"), meta.get("prompt")) != (entry["model"], entry["prompt"])):
            return False
        store.load(check_only=True)
    except Exception as exc:  # noqa: BLE001 - a listing says "not done", never fails, on a damaged result
        if isinstance(exc, CorruptShardError):
            warnings.warn(f"{exc}; its job is listed as to run", CacheWarning, stacklevel=2)
        return False
    return True


def record(request: str, result: SweepResult, head: str, cache_root=None) -> None:
    """Remember which sweep ``request`` produced (atomic; a failure to write only costs the shortcut)."""
    key = result.meta.get("key")
    if not key or result.meta.get("rendered"):  # a template that stamps the date: another day is another sweep
        return
    folder = index_dir(cache_root)
    folder.mkdir(parents=True, exist_ok=True)
    entry = {"request": request, "model": result.meta.get("model"), "prompt": result.meta.get("prompt"), "key": key,
             "head": head, "candidates": digest(result.frame["token_id"].to_numpy())}
    atomic.write_bytes(folder / f"{request}.json", json.dumps(entry, sort_keys=True).encode())
