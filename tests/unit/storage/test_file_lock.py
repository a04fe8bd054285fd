"""rmlib.storage.atomic.file_lock: blocking by default, and with wait=False a caller learns at once that another
process holds the lock (the chapter tests' shared runs use it instead of a flock of their own)."""
from __future__ import annotations

import subprocess
import sys
import time

from rmlib.storage.atomic import file_lock


def test_wait_false_yields_false_while_another_process_holds_the_lock(tmp_path):
    lock = tmp_path / "locks" / "x.lock"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom rmlib.storage.atomic import file_lock\n"
        f"with file_lock({str(lock)!r}):\n    print('held', flush=True)\n    time.sleep(30)\n")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        t0 = time.perf_counter()
        with file_lock(lock, wait=False) as got:
            assert got is False
        assert time.perf_counter() - t0 < 1  # at once, not after the holder's 30 s
    finally:
        holder.kill()
        holder.wait()
    with file_lock(lock, wait=False) as got:  # the holder is gone: granted
        assert got is True
    with file_lock(lock) as got:
        assert got is True
