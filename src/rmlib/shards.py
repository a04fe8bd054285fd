"""Parquet shards that survive crashes.

A full-vocabulary sweep of a 27B RM takes hours; a crash must cost at most one
chunk. Each chunk of candidates becomes one shard, written to a temporary file
and renamed into place, so a shard on disk is either whole or absent. A sweep is
complete only when a COMPLETE marker listing every shard exists.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

ENGINE_VERSION = "1"  # bump when the arithmetic of a sweep changes; it is part of every cache key


class ShardError(RuntimeError):
    pass


def sweep_key(params: dict) -> str:
    blob = json.dumps({**params, "engine": ENGINE_VERSION}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ShardStore:
    """One sweep's folder: meta.json, shard-NNNNN.parquet files and a COMPLETE marker."""

    def __init__(self, root: Path, meta: dict):
        self.root = Path(root)
        self.meta = meta

    def prepare(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        meta_path = self.root / "meta.json"
        if meta_path.exists():
            old = json.loads(meta_path.read_text())
            if old.get("key") != self.meta.get("key"):
                raise ShardError(f"{self.root} holds a different sweep (key {old.get('key')}); delete it to rerun")
        else:
            _atomic_write_bytes(meta_path, json.dumps(self.meta, indent=2, default=str).encode())

    def shard_path(self, index: int) -> Path:
        return self.root / f"shard-{index:05d}.parquet"

    @property
    def complete(self) -> bool:
        return (self.root / "COMPLETE").exists()

    def valid_shard(self, index: int, expected_rows: int) -> bool:
        """True for a readable shard with the expected row count; a corrupt one is moved aside."""
        path = self.shard_path(index)
        if not path.exists():
            return False
        try:
            n = pq.ParquetFile(path).metadata.num_rows
        except Exception:
            n = -1
        if n == expected_rows:
            return True
        path.replace(path.with_suffix(f".corrupt-{int(time.time())}"))
        return False

    def write_shard(self, index: int, df: pd.DataFrame) -> None:
        table = pa.Table.from_pandas(df, preserve_index=False)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               b"rmlib": json.dumps(self.meta, default=str).encode()})
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        _atomic_write_bytes(self.shard_path(index), sink.getvalue().to_pybytes())

    def mark_complete(self, n_shards: int, n_rows: int) -> None:
        info = {"n_shards": n_shards, "n_rows": n_rows, "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        _atomic_write_bytes(self.root / "COMPLETE", json.dumps(info).encode())

    def load(self) -> pd.DataFrame:
        if not self.complete:
            raise ShardError(f"{self.root} is not a complete sweep (no COMPLETE marker); rerun the sweep to resume it")
        info = json.loads((self.root / "COMPLETE").read_text())
        frames = []
        for i in range(info["n_shards"]):
            path = self.shard_path(i)
            try:
                frames.append(pq.read_table(path).to_pandas())
            except Exception as exc:
                raise ShardError(f"shard {path} is missing or unreadable ({exc}). Delete {self.root / 'COMPLETE'} "
                                 "and rerun the same sweep: only the damaged shards are recomputed.") from exc
        df = pd.concat(frames, ignore_index=True)
        if len(df) != info["n_rows"]:
            raise ShardError(f"{self.root}: {len(df)} rows on disk, COMPLETE says {info['n_rows']}. "
                             f"Delete {self.root / 'COMPLETE'} and rerun the sweep.")
        df.attrs["rmlib"] = self.meta
        return df
