"""rmlib.storage.integrity: content hashes kept per state of a file, and the per-process memo of full checks."""
from __future__ import annotations

import hashlib
import json
import os

from rmlib.storage import integrity


def _rewrite_keeping_size_and_mtime(path, data: bytes) -> None:
    st = path.stat()
    with open(path, "r+b") as f:  # in place: the same inode
        f.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # what `touch -r` does


def test_content_sha256_is_the_files_hash_and_follows_an_in_place_change(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    f = tmp_path / "model.safetensors"
    f.write_bytes(b"a" * 1000)
    assert integrity.content_sha256(f) == hashlib.sha256(b"a" * 1000).hexdigest()
    assert len(list((tmp_path / "cache" / "file_hashes").iterdir())) == 1  # kept for other processes
    _rewrite_keeping_size_and_mtime(f, b"b" * 1000)
    assert integrity.content_sha256(f) == hashlib.sha256(b"b" * 1000).hexdigest()


def test_a_kept_hash_is_served_only_for_the_same_file_state(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    f = tmp_path / "w.bin"
    f.write_bytes(b"x" * 10)
    integrity.content_sha256(f)
    record = next((tmp_path / "cache" / "file_hashes").iterdir())
    kept = json.loads(record.read_text())
    record.write_text(json.dumps({**kept, "sha256": "0" * 64}))  # a lie for the same state is served...
    assert integrity.content_sha256(f) == "0" * 64
    record.write_text("{damaged")  # ...but a damaged record is hashed again
    assert integrity.content_sha256(f) == hashlib.sha256(b"x" * 10).hexdigest()
    record.write_text(json.dumps({**kept, "path": str(tmp_path / "other")}))  # and so is another file's
    assert integrity.content_sha256(f) == hashlib.sha256(b"x" * 10).hexdigest()


def test_a_full_check_is_not_fooled_by_an_in_place_change_with_the_mtime_restored(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    f = folder / "model.safetensors"
    f.write_bytes(bytes(range(256)) * 16384)  # 4 MiB
    integrity.write_manifest(folder)
    assert integrity.check_manifest(folder, full=True) == []
    # the sampled hash reads the first 64 KiB and 16 spaced blocks: change one byte between them
    data = bytearray(f.read_bytes())
    data[200_000] ^= 1  # between the sampled blocks at 64-128 KiB and 328-392 KiB
    _rewrite_keeping_size_and_mtime(f, bytes(data))
    assert integrity.check_manifest(folder, full=True) == ["model.safetensors: sha256 differs from the one recorded"]
