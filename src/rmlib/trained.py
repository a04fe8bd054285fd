"""The RMs rmlib trained, as they lie in the cache: where a run is exported, the run file it records about itself,
which runs the cache holds, and what a ``local:<name>[@step<N>]`` id points at. Nothing is loaded (no torch).

The layout is written by :mod:`rmlib.train.export` and read here, in one place below the model loaders, so that the
registry resolves a ``local:`` id (:func:`rmlib.registry.get_spec`) without knowing the files of an export, and the
trainer and the loaders share the file names with the registry instead of repeating them.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import yaml

from rmlib import config
from rmlib.errors import ModelError
from rmlib.storage.integrity import content_sha256, read_manifest, sha256_bytes

__all__ = ["RUN_FILE", "local_rm_dir", "is_trained_folder", "local_rms", "read_run_file", "local_run",
           "folder_fingerprint", "FINGERPRINTED"]

RUN_FILE = "rmlib_run.yaml"  # what an rmlib training export records about itself (rmlib.train.export writes it)


_LOCAL = re.compile(r"^local:(?P<name>[^@]+)(@step(?P<step>\d+))?$")


def local_rm_dir(name: str, step: int | None = None) -> Path:
    """Where rmlib's training writes an RM: cache/rms/<name>[/step-<n>]."""
    base = Path(name) if Path(name).is_absolute() else config.cache_dir() / "rms" / name
    return base / f"step-{step}" if step is not None else base


def is_trained_folder(folder: str | Path) -> bool:
    """Whether ``folder`` lies where rmlib's training exports (cache/rms/...): such an RM's scored answers are cached
    inside it, so retraining it under the same name replaces them; any other folder is a user's, into which rmlib
    writes nothing (#66 item 9: a card wrote ``answers/`` into the model folder it was given)."""
    return Path(folder).resolve().is_relative_to((config.cache_dir() / "rms").resolve())


def local_rms() -> list[dict]:
    """The models rmlib trained that the cache holds (``cache/rms/<name>`` with a finished export), by name: id
    (``local:<name>``), kind (rm; lm for a DPO run, an implicit RM), base_model, objective, sources, n_pairs, steps,
    checkpoints (the steps of its ``step-<n>`` exports), path, run (its run file) and problem (why the run file
    could not be read, else None). Nothing is loaded."""
    root = config.cache_dir() / "rms"
    rows = []
    for folder in sorted(p for p in root.glob("*") if p.is_dir() and (p / "config.json").exists()):
        model_id, problem, run = f"local:{folder.name}", None, {}
        try:
            run = read_run_file(folder, model_id) if (folder / RUN_FILE).exists() else {}
        except ModelError as exc:
            problem = str(exc)
        steps = sorted(int(p.name[5:]) for p in folder.glob("step-*")
                       if p.name[5:].isdigit() and (p / "config.json").exists())
        objective = run.get("objective", "bradley_terry" if run else None)
        rows.append({"id": model_id, "kind": "lm" if objective == "dpo" else "rm", "base_model": run.get("base_model"),
                     "objective": objective, "sources": list(run.get("sources") or []), "n_pairs": run.get("n_pairs"),
                     "steps": run.get("steps"), "checkpoints": steps, "path": folder, "run": run,
                     "problem": problem})
    return rows


def read_run_file(folder: Path, what: str) -> dict:
    """The ``rmlib_run.yaml`` of a trained RM's folder, checked against its manifest's sha256 (when the folder has
    one) before it is parsed; a changed, undecodable or unparsable run file is a :class:`ModelError` that says so."""
    path = Path(folder) / RUN_FILE
    fix = "restore the folder from a copy, or retrain it with train(..., overwrite=True)"
    raw = path.read_bytes()
    recorded = ((read_manifest(folder) or {}).get("files") or {}).get(RUN_FILE, {}).get("sha256")
    if recorded is not None and sha256_bytes(raw) != recorded:
        raise ModelError(f"{what}: the checkpoint's run file {path} is damaged (its sha256 differs from the one "
                         f"recorded when it was exported); {fix}")
    try:
        meta = yaml.safe_load(raw.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ModelError(f"{what}: the checkpoint's run file {path} is damaged and cannot be read "
                         f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); {fix}") from exc
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise ModelError(f"{what}: the checkpoint's run file {path} is damaged (it holds a {type(meta).__name__}, "
                         f"not a mapping); {fix}")
    base = meta.get("base_model")
    if base is not None and not (isinstance(base, str) and base.strip()):
        raise ModelError(f"{what}: the checkpoint's run file {path} is damaged (its base_model is {base!r}, not a "
                         f"model id); {fix}")
    return meta


def local_run(model_id: str) -> tuple[Path, dict] | None:
    """(folder, run record) of a ``local:<name>[@step<N>]`` id, the record checked (:func:`read_run_file`; empty
    for an export without one); None when ``model_id`` is not of that form. A folder with no export is a
    :class:`ModelError` that says how to make one."""
    m = _LOCAL.match(model_id)
    if m is None:
        return None
    path = local_rm_dir(m["name"], int(m["step"]) if m["step"] else None)
    if not (path / "config.json").exists():
        if Path(m["name"]).is_absolute():  # local:/path names a saved model's folder, not a training run
            raise ModelError(_no_model_folder(model_id, path))
        raise ModelError(f"{model_id}: no trained RM at {path} (train one with rmlib.train, or check the name/step)")
    return path, (read_run_file(path, model_id) if (path / RUN_FILE).exists() else {})


# model id -> {"path": its folder, "fingerprint": what it held} when this process keyed or loaded it: a book
# chapter's kernel hands this to its stamp (:mod:`rmbook.book.imported`), so a retrained RM makes the pages that swept
# it stale. The folder is kept because an id resolves through RMLIB_CACHE_DIR, which a check may not share.
FINGERPRINTED: dict[str, dict[str, str]] = {}


def folder_fingerprint(model_id: str, folder: str | Path) -> str:
    """What a ``local:`` folder's weights are, for cache keys and stamps, from the sha256 of every file's content
    (:func:`rmlib.storage.integrity.content_sha256`: re-hashed only when a file changed). An rmlib export's files
    must still be those its manifest lists (a file changed since is refused, here too, so that no cache serves it),
    and its fingerprint is the manifest's listing, as always; any other folder's is its files' content hashes, so
    other weights written in place, even of the same size and with the old mtime, are another model (#62)."""
    folder = Path(folder)
    manifest = read_manifest(folder) or {}
    if isinstance(manifest.get("files"), dict):
        listing = {k: v.get("sha256") for k, v in manifest["files"].items()}
        changed = [k for k, sha in sorted(listing.items()) if content_sha256(folder / k) != sha]
        if changed:
            raise ModelError(f"{model_id}: {', '.join(changed[:3])} in {folder} changed since rmlib exported it "
                             "(sha256 differs from its manifest). Restore it, or retrain with train(..., overwrite=True).")
        fingerprint = f"files-sha256:{sha256_bytes(json.dumps(listing, sort_keys=True).encode())[:16]}"
    else:
        listing = sorted((p.name, content_sha256(p)) for p in folder.iterdir() if p.is_file())
        fingerprint = f"files-content:{hashlib.sha256(json.dumps(listing).encode()).hexdigest()[:16]}"
    FINGERPRINTED[model_id] = {"path": str(folder.resolve()), "fingerprint": fingerprint}
    return fingerprint


def _no_model_folder(model_id: str, path: Path) -> str:
    """Why ``local:/path`` names no model: the folder is missing, is a file, or holds no config.json (#62: "no
    trained RM at /etc (train one with rmlib.train)", as if a training run had been named)."""
    if not path.exists():
        return f"{model_id}: {path} does not exist (local:/path names the folder of a saved model)"
    if not path.is_dir():
        return f"{model_id}: {path} is a file, not a folder (local:/path names the folder of a saved model)"
    return (f"{model_id}: {path} holds no model: it has no config.json (a saved model's folder holds config.json, "
            "its weights (*.safetensors) and its tokenizer files, as model.save_pretrained(folder) and "
            "tokenizer.save_pretrained(folder) write them)")
