"""Content hashes that let rmlib prove a cached file is the one it wrote.

A model folder that rmlib writes (a de-quantised embedded model, a trained checkpoint) gets a manifest,
`rmlib_manifest.json`, listing every file with its size, its sha256 and a *sampled* sha256 (the first
64 KiB, which hold the safetensors header, plus 16 evenly spaced 64 KiB blocks). The manifest is written
inside the temporary folder before it is renamed into place, so a folder and its manifest appear together.

Checks come in two strengths. `quick`: every listed file is present with its size and sampled hash, and no
weight file is unlisted (milliseconds; `rmlib verify`). `full`: the sha256 of every byte (about 1.7 GB/s,
0.3 s for SmolLM2's fp32 copy); loading a model does it once per file and process, and `rmlib verify --full`
does it for everything.

A folder that rmlib did not write (``local:/path``) has no manifest, so its identity in cache keys is the sha256
of its files' content (:func:`content_sha256`). Hashing a 16 GB checkpoint takes about ten seconds, so the hash is
kept beside the cache under the file's (device, inode, size, mtime, ctime): a file written in place changes its
ctime, which no copy, ``touch -r`` or ``rsync -t`` can restore, so a changed file is always hashed again.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from rmlib import config
from rmlib.storage import atomic

MANIFEST = "rmlib_manifest.json"
_BLOCK = 1 << 16
_SAMPLES = 16
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def sampled_sha256(path: str | os.PathLike) -> str:
    """sha256 of the first 64 KiB and 16 evenly spaced 64 KiB blocks (with the size): catches truncation,
    a swapped file and damage to the header, in about a millisecond."""
    size = os.path.getsize(path)
    h = hashlib.sha256(str(size).encode())
    with open(path, "rb") as f:
        h.update(f.read(_BLOCK))
        if size > _BLOCK:
            for i in range(_SAMPLES):
                f.seek(_BLOCK + (size - 2 * _BLOCK) * i // max(_SAMPLES - 1, 1))
                h.update(f.read(_BLOCK))
    return h.hexdigest()


def _listed_files(folder: Path) -> list[Path]:
    """The files directly in `folder` (a model folder is flat; a training run's records and step-* folders sit
    beside its final model's files and are not part of it)."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name != MANIFEST)


def write_manifest(folder: str | os.PathLike, **info) -> dict:
    """Hash every file in `folder` and write the manifest (with `info`, e.g. the source's sha256) into it."""
    folder = Path(folder)
    files = {str(p.relative_to(folder)): {"size": p.stat().st_size, "sha256": sha256_file(p),
                                          "sampled_sha256": sampled_sha256(p)} for p in _listed_files(folder)}
    manifest = {"format": 1, **info, "files": files}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return manifest


def read_manifest(folder: str | os.PathLike) -> dict | None:
    """The manifest, or None when the folder has none (written by an older rmlib) or it is unreadable."""
    try:
        data = json.loads((Path(folder) / MANIFEST).read_text())
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (ValueError, UnicodeDecodeError):
        return {"unreadable": True}
    return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else {"unreadable": True}


def _stat_key(st: os.stat_result) -> list[int]:
    """What changes whenever a file's bytes can have changed: ctime moves on every write and cannot be set back."""
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def content_sha256(path: str | os.PathLike) -> str:
    """sha256 of a file's bytes, hashed once for each state of the file (its :func:`_stat_key`) and kept under
    the cache's ``file_hashes/`` for other processes. A damaged or foreign record is hashed again, never trusted."""
    path = Path(path).resolve()
    record = config.cache_dir() / "file_hashes" / f"{sha256_bytes(str(path).encode())[:32]}.json"
    key = _stat_key(path.stat())
    try:
        kept = json.loads(record.read_text())
        if kept["path"] == str(path) and kept["stat"] == key and len(kept["sha256"]) == 64:
            return kept["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    digest = sha256_file(path)
    if _stat_key(path.stat()) == key:  # not written to while it was hashed
        try:
            record.parent.mkdir(parents=True, exist_ok=True)
            atomic.write_bytes(record, json.dumps({"path": str(path), "stat": key, "sha256": digest}).encode())
        except OSError:
            pass  # a read-only cache: hashed again next time, never a wrong answer
    return digest


_full_checked: dict[tuple, str] = {}  # (path, size, mtime_ns, ctime_ns, inode) -> sha256 checked in this process


def check_manifest(folder: str | os.PathLike, full: bool = False, memo: bool = True) -> list[str]:
    """Problems with a manifest-carrying folder (empty when intact). `full` hashes every byte; with `memo` a file
    already fully checked in this process (same size, mtime, ctime and inode) is not hashed again."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    if manifest is None:
        return [f"no {MANIFEST} (written by an older rmlib, or not by rmlib)"]
    if manifest.get("unreadable"):
        return [f"{MANIFEST} is unreadable"]
    problems = []
    listed = manifest["files"]
    for rel, rec in sorted(listed.items()):
        p = folder / rel
        try:
            st = p.stat()
        except FileNotFoundError:
            problems.append(f"{rel} is missing")
            continue
        if st.st_size != rec.get("size"):
            problems.append(f"{rel} has {st.st_size} bytes, {rec.get('size')} were written")
            continue
        if sampled_sha256(p) != rec.get("sampled_sha256"):
            problems.append(f"{rel}: sampled sha256 differs from the one recorded")
            continue
        if full:
            stamp = (str(p), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            if memo and _full_checked.get(stamp) == rec.get("sha256"):
                continue
            if sha256_file(p) != rec.get("sha256"):
                problems.append(f"{rel}: sha256 differs from the one recorded")
            else:
                _full_checked[stamp] = rec["sha256"]
    extra = [str(p.relative_to(folder)) for p in _listed_files(folder)
             if str(p.relative_to(folder)) not in listed and p.suffix in _WEIGHT_SUFFIXES]
    if extra:
        problems.append(f"weight file(s) not in the manifest: {extra}")
    return problems
