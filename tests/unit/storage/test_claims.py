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


def test_a_claim_is_never_seen_without_its_content(tmp_path, monkeypatch):
    """An empty claim reads as one left by a killed writer and is taken over: the claim was created empty and then
    written, and under load another writer took over a live claim in between (three of forty shards computed
    twice in `make test`). The content is now in place before the claim appears."""
    path = tmp_path / ".claim-00000"
    seen = []
    real = claims.process_start

    def looking(pid):
        seen.append(path.read_text() if path.exists() else None)  # what another writer would find now
        return real(pid)

    monkeypatch.setattr(claims, "process_start", looking)
    assert claims.claim(path)
    assert seen and "" not in seen
    host, pid, start = path.read_text().split()
    assert (host, int(pid)) == (socket.gethostname(), os.getpid()) and start == real(os.getpid())


def test_two_writers_taking_over_one_stale_claim_get_it_once(tmp_path, monkeypatch):
    """Both judged the claim stale, then each removed what was at the path and created its own: the second removed
    the first one's new claim. The takeover now holds the folder's lock from the judgement to the new claim."""
    import threading

    path = tmp_path / ".claim-00000"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    _write(path, f"{socket.gethostname()} {dead.pid} -")
    real = claims.stale_reason

    def slow(p):
        why = real(p)
        time.sleep(0.3)  # both writers are between the judgement and the new claim
        return why

    monkeypatch.setattr(claims, "stale_reason", slow)
    won, said = [], []
    threads = [threading.Thread(target=lambda: won.append(claims.claim(path, say=said.append))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(won) == [False, True] and len(said) == 1


def test_a_claim_whose_heartbeat_is_far_in_the_future_is_stale_and_says_the_clock_is_skewed(tmp_path, stranger):
    """#62: a claim from another host whose mtime lay a day ahead waited about a day ("heartbeat -86369 s ago"):
    a negative age never passed the limit. Its magnitude is held to the same limit, and the message names the skew."""
    path = tmp_path / ".claim-00000"
    _write(path, f"another-host {stranger} x", age_s=-86400)
    why = claims.stale_reason(path)
    assert why is not None and "in the future" in why and "clock" in why and "skew" in why
    assert "-86" not in claims.holder(path) and "in the future" in claims.holder(path)
    _write(path, f"another-host {stranger} x", age_s=-60)  # a minute of skew is within the limit: still held
    assert claims.stale_reason(path) is None


@pytest.mark.parametrize("pid", [-1, 0, 99999999999])
def test_a_claim_naming_a_pid_that_cannot_run_is_stale(tmp_path, pid):
    """#62: pid -1 waited 10 minutes "for pid -1"; pid 99999999999 raised OverflowError from os.kill. A pid <= 0
    or one too large for the system is simply not running."""
    path = tmp_path / ".claim-00000"
    for start in ("-", "00000000-dead-boot:12345"):
        _write(path, f"{socket.gethostname()} {pid} {start}")
        assert "is gone" in claims.stale_reason(path)
