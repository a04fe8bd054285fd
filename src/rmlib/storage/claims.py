"""Claims: which process is computing a shard, so that two writers of one cache key share the work, and so that no
claim left behind by a killed, restarted or hung writer blocks the next one.

A claim is a file created exclusively. It records the writer's host, PID and the process's start (the kernel's boot
id and the start time in ``/proc/<pid>/stat``), and its mtime is the writer's heartbeat, refreshed every
:data:`HEARTBEAT_S` while it computes (:func:`beating`). It is taken over, with one line on stderr saying why, when:

* its process is gone (same host: the PID is not running), or
* another process now has that PID (same host: its start differs; after a container restart PIDs start again from
  1, so the dead writer's PID can be a live stranger or the resuming process itself), or
* it has been silent for :data:`SILENT_S` (any host; a claim from another machine can only be judged this way).

Why not the PID alone: that left a claim whose PID a restart had handed to another process, or to the resuming
sweep itself, in force forever, and the sweep waited without a word (#39 item 2).
"""
from __future__ import annotations

import contextlib
import os
import socket
import sys
import time
from pathlib import Path

from rmlib import background
from rmlib.storage import atomic

__all__ = ["HEARTBEAT_S", "SILENT_S", "TAKEOVER_LOCK", "claim", "release", "beating", "stale_reason", "holder"]

HEARTBEAT_S = 30.0  # a writer refreshes its claim's mtime this often while it computes
SILENT_S = 600.0    # a claim not refreshed for this long is taken over, whoever holds it


def process_start(pid: int) -> str | None:
    """What tells this process apart from an earlier one with the same PID: the boot id and the process's start time
    in clock ticks since boot (``/proc``); None where there is no ``/proc`` (then the PID alone is checked)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        stat = Path(f"/proc/{pid}/stat").read_text()
        return f"{boot}:{stat.rsplit(')', 1)[1].split()[19]}"
    except (OSError, IndexError):
        return None


def _read(path: Path) -> tuple[str, int, str | None, float]:
    """(host, pid, start or None for a claim written before starts were recorded, seconds since its heartbeat)."""
    fields = path.read_text().split()
    age = time.time() - path.stat().st_mtime
    return fields[0], int(fields[1]), (fields[2] if len(fields) > 2 and fields[2] != "-" else None), age


def stale_reason(path: Path) -> str | None:
    """Why the claim at ``path`` no longer holds (its writer is gone, restarted or silent), or None while it does."""
    try:
        host, pid, start, age = _read(path)
    except FileNotFoundError:
        return "it is gone"
    except (OSError, ValueError, IndexError):
        return "it is unreadable (its writer was killed while writing it)"
    if age > SILENT_S:
        return f"its writer ({host}, pid {pid}) has been silent for {age / 60:.0f} min (the limit is {SILENT_S / 60:.0f})"
    if -age > SILENT_S:  # a heartbeat ahead of this clock: the writer's clock is skewed, judged by the same limit
        return (f"its heartbeat ({host}, pid {pid}) lies {-age / 60:.0f} min in the future, beyond the limit of "
                f"{SILENT_S / 60:.0f} min: the clocks of this host and the writer's (or the file system's) are skewed")
    if host != socket.gethostname():
        return None
    if start is not None:
        now = process_start(pid)
        if now is None and not atomic._pid_alive(pid):
            return f"its writer (pid {pid}) is gone"
        if now is not None and now != start:
            return f"its writer (pid {pid}) is gone, and that pid now belongs to another process"
        return None
    if pid == os.getpid() or not atomic._pid_alive(pid):  # an old claim: the pid alone says so
        return f"its writer (pid {pid}) is gone" + (", and that pid is now this process" if pid == os.getpid() else "")
    return None


def holder(path: Path) -> str:
    """Who holds the claim at ``path``, for a waiting message."""
    try:
        host, pid, _, age = _read(path)
    except (OSError, ValueError, IndexError):
        return "a writer that left no readable claim"
    if age < -1:  # more than the file system's rounding: the writer's clock runs ahead of this one
        return f"{host}, pid {pid}, heartbeat {-age:.0f} s in the future (the clocks are skewed)"
    return f"{host}, pid {pid}, heartbeat {max(age, 0):.0f} s ago"


TAKEOVER_LOCK = ".claims-takeover.lock"  # one per folder: takeovers of its stale claims happen one at a time


def _create(path: Path) -> bool:
    """Create the claim at ``path`` with its content in one step, or return False when one exists. The content is
    written to a temporary file first and hard-linked into place, so no reader ever sees an empty claim: an empty
    one reads as left by a writer killed while writing it, and is taken over, so two writers computed one shard
    (seen under load: three shards of forty done twice). Where the file system has no hard links, the claim is
    created exclusively and then written, as before."""
    content = f"{socket.gethostname()} {os.getpid()} {process_start(os.getpid()) or '-'}"
    tmp = atomic.temp_path(path)
    try:
        tmp.write_text(content)
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    except OSError:  # no hard links here
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as f:
            f.write(content)
        return True
    finally:
        tmp.unlink(missing_ok=True)


def claim(path: Path, what: str = "", say=None) -> bool:
    """Create the claim at ``path`` for this process; False while a live writer holds it. A stale claim is taken
    over, and ``say`` (default: a line on stderr) says why. Takeovers in one folder hold one lock
    (:data:`TAKEOVER_LOCK`) from the judgement to the new claim, so two writers that both find a claim stale cannot
    both remove it and then one another's new claim."""
    say = say or (lambda msg: print(msg, file=sys.stderr, flush=True))
    if _create(path):
        return True
    with atomic.file_lock(path.parent / TAKEOVER_LOCK):
        if not path.exists():  # released meanwhile
            return _create(path)
        why = stale_reason(path)
        if why is None:
            return False
        say(f"[rmlib] taking over {what or path.name}: {why}")
        path.unlink(missing_ok=True)
        return _create(path)


def release(path: Path) -> None:
    path.unlink(missing_ok=True)


def beating(path: Path, every_s: float | None = None):
    """Refresh the claim's heartbeat every ``every_s`` (default :data:`HEARTBEAT_S`) while the block runs, so that
    a long computation is not taken for a hung writer."""
    def beat():
        with contextlib.suppress(OSError):
            os.utime(path)

    return background.every(HEARTBEAT_S if every_s is None else every_s, beat, "rmlib-claim-heartbeat")
