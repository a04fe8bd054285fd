"""Keep libraries' own output off a book page: in a book run their warnings, log records and progress bars go to the
build log (the kernel's process stderr, which the book runner prints), not into the notebook's outputs.

A cold build trains RMs, and transformers, TRL, datasets and tqdm each print while they do: log dicts, bars saved as
widgets, FutureWarnings that carry the building machine's absolute paths. A warm build prints none of it (cached
training is silent), so only a cold build shows the clutter; this is switched on by every chapter's
:func:`rmbook.report.setup_page` when ``RMLIB_BOOK`` is set, and left alone in an interactive session, where a
researcher wants to see them.
"""
from __future__ import annotations

import functools
import io
import logging
import os
import sys
import warnings

__all__ = ["in_book_run", "quiet_libraries", "build_log"]

_LIBRARY_LOGGERS = ("transformers", "trl", "datasets", "peft", "accelerate", "huggingface_hub", "torch", "gguf")


def in_book_run() -> bool:
    """True inside a chapter that ``rmbook.book run`` executes (it sets RMLIB_BOOK=1 for the kernel)."""
    return os.environ.get("RMLIB_BOOK", "") == "1"


@functools.lru_cache(maxsize=1)
def build_log():
    """The kernel process's own stderr, which papermill and the book runner print: the build log.

    ``sys.__stderr__`` is not enough. ipykernel forwards whatever reaches file descriptor 2 into the notebook, as a
    stderr output on the page (it stops doing so under pytest, whose ``PYTEST_CURRENT_TEST`` it checks, so the
    chapter tests never saw it; a full book showed transformers' FutureWarning with the venv's path). It keeps a copy
    of the original descriptor, which still leads to the process's stderr: write there."""
    copy = getattr(sys.stderr, "_original_stdstream_copy", None)
    if isinstance(copy, int):
        return io.TextIOWrapper(io.FileIO(os.dup(copy), "w"), line_buffering=True)
    return sys.__stderr__ or sys.stderr


def _to_build_log(message, category, filename, lineno, file=None, line=None):
    build_log().write(warnings.formatwarning(message, category, filename, lineno, line))


def quiet_libraries() -> None:
    """Route warnings and library log records to the process's stderr and turn library progress bars off."""
    warnings.showwarning = _to_build_log
    # tqdm.auto picks the notebook bar in a kernel, and that class forces disable=False over TQDM_DISABLE; libraries
    # that import `from tqdm.auto import tqdm` later (transformers' GGUF loader) get the plain bar, which obeys it.
    import tqdm.auto
    import tqdm.std
    tqdm.auto.tqdm = tqdm.std.tqdm
    try:
        from transformers.utils import logging as hf_logging
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - transformers is a dependency
        pass
    try:
        import datasets
        datasets.disable_progress_bars()
    except ImportError:  # pragma: no cover
        pass
    # last: importing transformers' logging above gives its library logger a handler onto the page's stderr
    handler = logging.StreamHandler(build_log())
    for name in _LIBRARY_LOGGERS:
        lg = logging.getLogger(name)
        lg.handlers[:] = [handler]
        lg.propagate = False
