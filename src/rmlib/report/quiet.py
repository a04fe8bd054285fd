"""Keep libraries' own output off a book page: in a book run their warnings, log records and progress bars go to the
build log (the kernel's process stderr, which the book runner prints), not into the notebook's outputs.

A cold build trains RMs, and transformers, TRL, datasets and tqdm each print while they do: log dicts, bars saved as
widgets, FutureWarnings that carry the building machine's absolute paths. A warm build prints none of it (cached
training is silent), so only a cold build shows the clutter; this is switched on by every chapter's
:func:`rmlib.report.setup_page` when ``RMLIB_BOOK`` is set, and left alone in an interactive session, where a
researcher wants to see them.
"""
from __future__ import annotations

import logging
import os
import sys
import warnings

__all__ = ["in_book_run", "quiet_libraries"]

_LIBRARY_LOGGERS = ("transformers", "trl", "datasets", "peft", "accelerate", "huggingface_hub", "torch", "gguf")


def in_book_run() -> bool:
    """True inside a chapter that ``rmlib.book run`` executes (it sets RMLIB_BOOK=1 for the kernel)."""
    return os.environ.get("RMLIB_BOOK", "") == "1"


def _to_build_log(message, category, filename, lineno, file=None, line=None):
    stream = sys.__stderr__ or sys.stderr
    stream.write(warnings.formatwarning(message, category, filename, lineno, line))


def quiet_libraries() -> None:
    """Route warnings and library log records to the process's stderr and turn library progress bars off."""
    warnings.showwarning = _to_build_log
    handler = logging.StreamHandler(sys.__stderr__ or sys.stderr)
    for name in _LIBRARY_LOGGERS:
        lg = logging.getLogger(name)
        lg.handlers[:] = [handler]
        lg.propagate = False
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
