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
sha256), ``local:`` RMs (the exported files' sha256s, or their names, sizes and times) and hub models pinned to a
revision. Tiny random models (their fingerprint is a hash of weights built in memory; they load in a second anyway)
and unpinned hub models always load.
"""
from __future__ import annotations

import json
from dataclasses import asdict
from importlib import metadata
from pathlib import Path

from rmlib import __version__, config
from rmlib.engine.store import SweepResult, _cached_frame, cache_parent, digest
from rmlib.storage import ShardStore, atomic, sweep_key

__all__ = ["request_key", "fingerprint", "lookup", "record", "index_dir"]


def index_dir() -> Path:
    """Where request → sweep-key entries live (beside the sweeps, one small JSON file per request)."""
    return config.cache_dir() / "sweep_requests"


def fingerprint(spec, options) -> str | None:
    """What identifies the weights ``spec`` names without loading them, or None when nothing cheap does."""
    from rmlib.models import SOURCES

    if spec.source == "tiny":
        return None
    if spec.source == "hub":
        return options.revision or spec.revision or None
    try:
        return SOURCES[spec.source].revision(spec, None)
    except Exception:  # noqa: BLE001 - no fingerprint means no shortcut, never a wrong answer
        return None


def _tokens_field(tokens):
    if tokens is None:
        return None
    if isinstance(tokens, slice):
        return ["slice", tokens.start, tokens.stop, tokens.step]
    return ["ids", digest([int(t) for t in tokens])]


def request_key(model, prompt: str, tokens=None, load=None) -> str | None:
    """The index key of one ``token_rewards`` request, or None when it cannot be served without loading (a
    LoadedModel was given, or the model has no cheap fingerprint)."""
    if not isinstance(model, str):
        return None
    from rmlib.models import LoadOptions
    from rmlib.models.devices import resolve_device
    from rmlib.registry import spec_at

    options = LoadOptions.of(load)
    spec = spec_at(model, options.revision)
    fp = fingerprint(spec, options)
    if fp is None:
        return None
    versions = {p: metadata.version(p) for p in ("torch", "transformers")}
    return sweep_key({"request": model, "spec": asdict(spec), "fingerprint": fp, "prompt": prompt,
                      "tokens": _tokens_field(tokens), "load": asdict(options),
                      "device": resolve_device(options.device).type, "rmlib": __version__, **versions})


def lookup(request: str) -> tuple[SweepResult, str] | None:
    """(the cached sweep, the model's head) for ``request``, verified byte for byte, or None."""
    try:
        entry = json.loads((index_dir() / f"{request}.json").read_text())
        key, head, candidates = entry["key"], entry["head"], entry["candidates"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    df = _cached_frame(ShardStore(cache_parent(None, "sweeps") / key, {}))
    if df is None or df.attrs.get("rmlib", {}).get("key") != key or digest(df["token_id"].to_numpy()) != candidates:
        return None
    return SweepResult(df, df.attrs["rmlib"], cached=True), head


def record(request: str, result: SweepResult, head: str) -> None:
    """Remember which sweep ``request`` produced (atomic; a failure to write only costs the shortcut)."""
    key = result.meta.get("key")
    if not key:
        return
    folder = index_dir()
    folder.mkdir(parents=True, exist_ok=True)
    entry = {"key": key, "head": head, "candidates": digest(result.frame["token_id"].to_numpy())}
    atomic.write_bytes(folder / f"{request}.json", json.dumps(entry, sort_keys=True).encode())
