"""rmlib.background.every: the action repeats while the block runs, and the thread is gone when it ends, however it
ends (the claims' heartbeat and the book's progress lines both rely on it)."""
import threading
import time

import pytest

from rmlib.background import every


def _alive(name: str) -> bool:
    return any(t.name == name for t in threading.enumerate())


def test_the_action_repeats_while_the_block_runs_and_stops_with_it():
    calls = []
    with every(0.02, lambda: calls.append(time.monotonic()), "planted-beat"):
        assert _alive("planted-beat") and calls == []  # the first call waits one interval
        time.sleep(0.2)
    n = len(calls)
    assert n >= 3 and not _alive("planted-beat")
    time.sleep(0.1)
    assert len(calls) == n  # nothing runs after the block


def test_the_thread_is_joined_when_the_block_raises():
    with pytest.raises(KeyError):
        with every(0.01, lambda: None, "planted-raise"):
            raise KeyError("x")
    assert not _alive("planted-raise")
