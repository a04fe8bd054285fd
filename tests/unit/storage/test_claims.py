"""rmlib.storage.claims: a claim left by a killed, restarted or hung writer is taken over with one line saying why,
and a waiting sweep says what it waits for (#39 item 2: it waited forever, printing nothing)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pandas as pd
import pytest

from rmlib.engine.token_sweep import _share_chunks
from rmlib.storage import ShardStore, claims


@pytest.fixture
def stranger():
    """A live process that is not this one (what a restarted container's PID 1..n may be)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc.pid
    proc.kill()
    proc.wait()


def _write(path, text, age_s=0.0):
    path.write_text(text)
    t = time.time() - age_s
    os.utime(path, (t, t))


def test_a_claim_is_kept_while_its_writer_lives_and_beats(tmp_path, stranger):
    path = tmp_path / ".claim-00000"
    _write(path, f"{socket.gethostname()} {stranger} {claims.process_start(stranger)}")
    assert claims.stale_reason(path) is None
    assert not claims.claim(path, say=pytest.fail)
    assert "pid %d" % stranger in claims.holder(path)


def test_a_pid_reused_after_a_restart_does_not_keep_the_claim(tmp_path, stranger):
    """The reproduction of #39 item 2: a claim naming a live PID (another process's, or this one's) from before a
    restart; its start differs from the live process's, so it is stale."""
    path = tmp_path / ".claim-00001"
    for pid in (stranger, os.getpid()):
        _write(path, f"{socket.gethostname()} {pid} 00000000-dead-boot:12345")
        assert "another process" in claims.stale_reason(path)
    lines = []
    assert claims.claim(path, "shard 1 of k", say=lines.append)
    assert lines == [f"[rmlib] taking over shard 1 of k: its writer (pid {os.getpid()}) is gone, and that pid now "
                     "belongs to another process"]
    assert path.read_text().split()[1] == str(os.getpid())


def test_an_old_claim_naming_a_live_pid_is_taken_over_once_silent(tmp_path, stranger, monkeypatch):
    """A claim in the old format ("host pid", no start) naming a live PID: it holds while its heartbeat is fresh and
    is taken over once silent for SILENT_S, from any host."""
    path = tmp_path / ".claim-00002"
    _write(path, f"{socket.gethostname()} {stranger}")
    assert claims.stale_reason(path) is None
    _write(path, f"{socket.gethostname()} {stranger}", age_s=claims.SILENT_S + 5)
    assert "silent for 10 min" in claims.stale_reason(path)
    _write(path, f"another-host {stranger} x", age_s=60)
    assert claims.stale_reason(path) is None
    _write(path, f"another-host {stranger} x", age_s=claims.SILENT_S + 5)
    assert claims.stale_reason(path) is not None


def test_a_writer_keeps_its_claim_fresh_while_it_computes(tmp_path):
    path = tmp_path / ".claim-00003"
    assert claims.claim(path)
    t = time.time() - 500
    os.utime(path, (t, t))
    with claims.beating(path, every_s=0.05):
        time.sleep(0.3)
    assert time.time() - path.stat().st_mtime < 5


class _Bar:
    def update(self, n):
        pass


def test_a_waiting_sweep_says_what_it_waits_for_and_takes_over_a_silent_claim(tmp_path, stranger, monkeypatch,
                                                                              capsys):
    store = ShardStore(tmp_path / "key", {"key": "key"})
    store.root.mkdir()
    claim = store.root / ".claim-00000"
    _write(claim, f"{socket.gethostname()} {stranger} {claims.process_start(stranger)}")
    monkeypatch.setattr(claims, "SILENT_S", 0.6)
    lines, done = [], []

    def compute(c):
        store.write_shard(c, pd.DataFrame({"token_id": [c]}))
        done.append(c)

    _share_chunks(store, [0], lambda c: 1, compute, _Bar(), poll_s=0.05, say_every_s=0.2, say=lines.append)
    assert done == [0] and not claim.exists()
    text = "".join(lines) + capsys.readouterr().err  # the take-over line goes to stderr
    assert "[rmlib] waiting for 1 shard(s) of key that another writer is computing (shard 0: " in text
    assert f"pid {stranger}" in text and "[rmlib] taking over shard 0 of key: its writer" in text
