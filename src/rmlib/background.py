"""Work that repeats in a background thread while a block of code runs: a claim's heartbeat while a shard is
computed (:mod:`rmlib.storage.claims`), the book's progress lines while a chapter runs (:mod:`rmbook.book.runner`).

One helper, so that each of them is only what it does each time, and the thread always stops and is joined when
the block ends, however it ends (an exception included), leaving no thread behind to write after its owner is gone.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

__all__ = ["every"]


@contextlib.contextmanager
def every(seconds: float, action: Callable[[], None], name: str) -> Iterator[None]:
    """Call ``action()`` every ``seconds`` in a daemon thread named ``name`` while the ``with`` block runs (the first
    call one interval after it starts), then stop the thread and wait for it."""
    stop = threading.Event()

    def loop():
        while not stop.wait(seconds):
            action()

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
