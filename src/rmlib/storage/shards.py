"""Parquet shards that survive crashes and prove their content.

A full-vocabulary sweep of a 27B RM takes hours; a crash must cost at most one chunk, and a cached number
must be the number that was computed. Each chunk of candidates becomes one shard, written to a temporary
file and renamed into place, so a shard on disk is either whole or absent. Its name carries the first 16 hex
digits of its sha256 (`shard-00003-<sha16>.parquet`), so a shard certifies itself even before the sweep
is finished, and a resumed run re-checks every shard it keeps. A sweep is complete only when a COMPLETE
marker exists; it lists every shard with its full sha256 and row count, the sha256 of meta.json, and a
checksum of its own. Loading re-hashes every byte it reads (the cost is ~1% of decoding the Parquet),
so a flipped bit anywhere is caught: the damaged shard is moved aside, the result is no longer complete,
and the caller recomputes just that shard.

meta.json describes the data on disk: the settings in the cache key, written by the first run, plus what
each shard's writer used (batch size, device, versions), which loading collects from the shards themselves.
"""
from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import re
import shutil
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rmlib.storage import atomic, claims
from rmlib.storage.integrity import sha256_bytes
from rmlib.errors import RmlibError

# Bump when the arithmetic of a sweep changes; it is part of every cache key. 3: an LM's answer log-probs as
# logit - logsumexp over only the answer's context (kernels.lm_logprobs_shared), and answers scored over shared
# prompt openings (engine.prefix_tree): equal within float rounding in float32, but up to 0.06 in P(yes) in bfloat16.
ENGINE_VERSION = "3"
FORMAT = 2            # layout of a sweep folder (1: shard-NNNNN.parquet without hashes)
RUN_FIELDS = ("batch_size", "device", "rmlib_version", "torch_version", "transformers_version")
_SHARD = re.compile(r"^shard-(?P<index>\d{5})-(?P<sha>[0-9a-f]{16})\.parquet$")


class ShardError(RmlibError, RuntimeError):
    pass


class CorruptShardError(ShardError):
    """Cached data failed its hash check. The damaged files were moved aside; recompute to repair."""

    def __init__(self, message: str, paths: list[Path]):
        super().__init__(message)
        self.paths = paths


def sweep_key(params: dict) -> str:
    blob = json.dumps({**params, "engine": ENGINE_VERSION}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def _complete_check(body: dict) -> str:
    return sha256_bytes(json.dumps(body, sort_keys=True).encode())


class ShardStore:
    """One result's folder: meta.json, shard-NNNNN-<sha16>.parquet files and a COMPLETE marker."""

    def __init__(self, root: Path, meta: dict):
        self.root = Path(root)
        self.meta = meta
        self._chosen: dict[int, Path] = {}  # index -> verified shard file, filled by valid_shard/write_shard

    # ------------------------------------------------------------ writing

    def prepare(self) -> None:
        """Create the folder and meta.json (kept from an earlier run of the same key); clear orphaned temp files."""
        self.root.mkdir(parents=True, exist_ok=True)
        atomic.remove_orphans(self.root)
        meta_path = self.root / "meta.json"
        try:
            old = json.loads(meta_path.read_text())
        except FileNotFoundError:
            old = None
        except (ValueError, UnicodeDecodeError):
            atomic.quarantine(meta_path)  # damaged: the shards certify themselves, the label is rewritten
            old = None
        if old is not None and old.get("key") != self.meta.get("key"):
            if self.root.name != self.meta.get("key"):
                raise ShardError(f"{self.root} holds a different result (key {old.get('key')}); delete it to rerun")
            atomic.quarantine(meta_path)  # the folder is named by the key, so this label is damaged
            old = None
        if old is None:
            atomic.write_bytes(meta_path, json.dumps(self.meta, indent=2, default=str).encode())

    def shard_files(self, index: int) -> list[Path]:
        return sorted(self.root.glob(f"shard-{index:05d}-*.parquet"))

    def valid_shard(self, index: int, expected_rows: int) -> bool:
        """True when a shard for `index` is on disk, matches the hash in its name and has the expected rows.
        Shards that fail are moved aside (`.corrupt-*`), so they are never read again."""
        for path in self.shard_files(index):
            m = _SHARD.match(path.name)
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            ok = m is not None and sha256_bytes(data).startswith(m["sha"])
            if ok:
                try:
                    ok = pq.ParquetFile(io.BytesIO(data)).metadata.num_rows == expected_rows
                except Exception:
                    ok = False
            if ok:
                self._chosen[index] = path
                return True
            _quarantine_quietly(path)
        return False

    # ------------------------------------------------------------ claims: writers of one key share the work

    def _claim_path(self, index: int) -> Path:
        return self.root / f".claim-{index:05d}"

    def claim(self, index: int) -> bool:
        """Take shard ``index`` for this process; False while another live writer of the same key holds it.

        Why: two runs of one key (a chapter and a plan, two Ray workers) would otherwise compute every shard twice
        and keep both files. A claim whose writer is gone, restarted or silent is taken over
        (:mod:`rmlib.storage.claims`), so a killed run never blocks."""
        return claims.claim(self._claim_path(index), f"shard {index} of {self.root.name}")

    def heartbeat(self, index: int):
        """A context in which this writer's claim on shard ``index`` stays fresh (:func:`claims.beating`)."""
        return claims.beating(self._claim_path(index))

    def claim_holder(self, index: int) -> str:
        return claims.holder(self._claim_path(index))

    def release(self, index: int) -> None:
        claims.release(self._claim_path(index))

    def write_shard(self, index: int, df: pd.DataFrame) -> Path:
        table = pa.Table.from_pandas(df, preserve_index=False)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               b"rmlib": json.dumps(self.meta, default=str).encode()})
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        data = sink.getvalue().to_pybytes()
        if self.shard_files(index) and self.valid_shard(index, len(df)):
            return self._chosen[index]  # another writer of this key finished it first: one file per shard
        path = self.root / f"shard-{index:05d}-{sha256_bytes(data)[:16]}.parquet"
        atomic.write_bytes(path, data)
        self._chosen[index] = path
        return path

    def mark_complete(self, n_shards: int, n_rows: int) -> None:
        """Write COMPLETE listing each shard's file, sha256 and rows (re-read and re-hashed here)."""
        shards, total = [], 0
        for i in range(n_shards):
            path = self._chosen.get(i)
            if path is None or not path.exists():
                raise ShardError(f"{self.root}: shard {i} is missing; rerun to compute it")
            data = path.read_bytes()
            digest = sha256_bytes(data)
            if not digest.startswith(_SHARD.match(path.name)["sha"]):
                _quarantine_quietly(path)
                raise CorruptShardError(f"{path} changed on disk before the result was finished", [path])
            rows = pq.ParquetFile(io.BytesIO(data)).metadata.num_rows
            shards.append({"file": path.name, "sha256": digest, "rows": rows})
            total += rows
        if total != n_rows:
            raise ShardError(f"{self.root}: {total} rows in the shards, {n_rows} expected")
        body = {"format": FORMAT, "n_shards": n_shards, "n_rows": n_rows, "shards": shards,
                "meta_sha256": sha256_bytes((self.root / "meta.json").read_bytes()),
                "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        atomic.write_bytes(self.root / "COMPLETE", json.dumps({**body, "check": _complete_check(body)},
                                                               indent=1).encode())

    # ------------------------------------------------------------ reading

    @property
    def complete(self) -> bool:
        return (self.root / "COMPLETE").exists()

    def _complete_info(self) -> dict:
        """COMPLETE's contents, if its own checksum holds; otherwise it is moved aside (CorruptShardError)."""
        path = self.root / "COMPLETE"
        try:
            info = json.loads(path.read_text())
            body = {k: v for k, v in info.items() if k != "check"}
            ok = info.get("format") == FORMAT and info.get("check") == _complete_check(body)
        except FileNotFoundError:
            raise ShardError(f"{self.root} is not a complete result (no COMPLETE marker); rerun to resume it") from None
        except (ValueError, UnicodeDecodeError, AttributeError):
            ok = False
        if not ok:
            moved = _quarantine_quietly(path)
            raise CorruptShardError(f"{path} is damaged or from an older rmlib (moved to {moved.name})", [path])
        return info

    def load(self, check_only: bool = False) -> pd.DataFrame | None:
        """The complete result, every byte checked against the sha256 recorded in COMPLETE.

        Anything that fails is moved aside and COMPLETE removed, then CorruptShardError names it: call the
        computation again and it recomputes only those shards. The frame's attrs["rmlib"] is meta.json plus the
        settings each shard was written with (a value, or a sorted list when shards differ).
        """
        info = self._complete_info()
        meta_bytes = (self.root / "meta.json").read_bytes() if (self.root / "meta.json").exists() else b""
        bad, tables = [], []
        if sha256_bytes(meta_bytes) != info["meta_sha256"]:
            bad.append(self.root / "meta.json")
        for entry in info["shards"]:
            path = self.root / entry["file"]
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                bad.append(path)
                continue
            if sha256_bytes(data) != entry["sha256"]:
                bad.append(path)
                continue
            if not check_only:
                tables.append(pq.read_table(io.BytesIO(data)))
        if bad:
            (self.root / "COMPLETE").unlink(missing_ok=True)
            moved = [_quarantine_quietly(p) for p in bad if p.exists()]
            names = ", ".join(p.name for p in bad)
            raise CorruptShardError(f"{self.root}: {names} failed the sha256 check"
                                    + (f" (moved aside as {', '.join(m.name for m in moved)})" if moved else ""), bad)
        if check_only:
            return None
        df = pd.concat([t.to_pandas() for t in tables], ignore_index=True)
        if len(df) != info["n_rows"]:
            raise ShardError(f"{self.root}: {len(df)} rows on disk, COMPLETE says {info['n_rows']}")
        df.attrs["rmlib"] = self._meta_on_disk(meta_bytes, tables, info)
        return df

    def _meta_on_disk(self, meta_bytes: bytes, tables, info: dict) -> dict:
        meta = json.loads(meta_bytes)
        writers = [json.loads((t.schema.metadata or {}).get(b"rmlib", b"{}")) for t in tables]
        for field in RUN_FIELDS:
            values = sorted({json.dumps(w.get(field), default=str) for w in writers if field in w})
            if values:
                decoded = [json.loads(v) for v in values]
                meta[field] = decoded[0] if len(decoded) == 1 else decoded
        meta["finished"] = info.get("finished")
        return meta

    # ------------------------------------------------------------ replacing

    def publish_to(self, target: Path) -> None:
        """Make this (complete) folder the result at `target`, replacing what is there.

        Used by cache=False: the fresh result is computed beside the old one, which stays served until the old
        folder is renamed away and this one renamed into its place (microseconds apart; a reader in between
        finds no result and computes one). A folder that a concurrent run creates in between is moved aside too.
        """
        target = Path(target)
        moved = []
        for _ in range(10):
            if target.exists():
                moved.append(atomic.temp_path(target))
                os.rename(target, moved[-1])
            try:
                os.rename(self.root, target)
                break
            except OSError as exc:
                if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
        else:
            raise ShardError(f"could not replace {target}: other processes keep recreating it")
        self.root = target
        for old in moved:
            shutil.rmtree(old, ignore_errors=True)


def _quarantine_quietly(path: Path) -> Path:
    try:
        return atomic.quarantine(path)
    except FileNotFoundError:
        return path
