"""Where the book lives: the checkout's folders, which only the book knows (rmlib installs anywhere, #64 item 4).

The book is run from a checkout of the project (its notebooks, ``_toc.yml`` and data files lie beside ``src/``), so
its paths are the checkout's: the executed chapters (``book/_executed``), their results and the reruns' folders.
:func:`use_checkout_folders` gives rmlib the checkout's data, cache and mirror folders when the environment names
none, as the Makefile does: the book's runner calls it (``rmbook.book.runner.run_chapter`` and ``run_chapters``), so
``rmlib book run``, a tool that runs chapters, and the kernels they start (which inherit the environment) read
``data/external`` and write ``.cache/rmlib`` whether or not `make` started them.
"""
import os
from pathlib import Path

from rmlib import config

__all__ = ["ROOT", "BOOK_EXECUTED", "RESULTS_SUBDIR", "RERUNS_SUBDIR", "book_results_dir", "book_results_dirs",
           "checkout_folders", "use_checkout_folders"]

ROOT = Path(__file__).resolve().parents[2]  # the checkout: src/rmbook/paths.py -> the folder holding src/
BOOK_EXECUTED = ROOT / "book" / "_executed"  # where the book's runner writes executed chapters
RESULTS_SUBDIR = "results"  # the chapters' results, inside any folder of executed chapters
RERUNS_SUBDIR = "reruns"  # a chapter rerun with parameters of its own: reruns/<name>-<key>/, its own executed folder


def book_results_dir() -> Path:
    """Where the book's own runs keep the chapters' results (``book/_executed/results``); the book's runner writes
    there (``rmbook.book.chapters.results_dir``)."""
    return (BOOK_EXECUTED / RESULTS_SUBDIR).resolve()


def book_results_dirs() -> list[Path]:
    """The book's results folder (:func:`book_results_dir`) and every rerun's (``book/_executed/reruns/<name>-<key>/
    results``, where ``rmlib book run NAME`` with parameters of its own writes: ``rmbook.book.reruns``): what
    ``rmlib verify`` checks by default (through :func:`rmbook.results.results_folders`, the ``rmlib.results_folders``
    entry point)."""
    reruns = sorted(p.resolve() for p in (BOOK_EXECUTED / RERUNS_SUBDIR).glob(f"*/{RESULTS_SUBDIR}") if p.is_dir())
    return [book_results_dir(), *reruns]


def checkout_folders() -> dict[str, Path]:
    """{environment variable: the checkout's folder}: its verified data, its cache, and the raw-data mirror beside
    it (``../shared/data``) when there is one."""
    folders = {config.DATA_ENV: ROOT / "data" / "external", config.CACHE_ENV: ROOT / ".cache" / "rmlib"}
    mirror = ROOT.parent / "shared" / "data"
    return {**folders, **({config.MIRROR_ENV: mirror.resolve()} if mirror.is_dir() else {})}


def use_checkout_folders() -> None:
    """Set each of :func:`checkout_folders` in the environment unless it is set already (a user's or a test's own
    folder wins)."""
    for name, folder in checkout_folders().items():
        if not os.environ.get(name):
            os.environ[name] = str(folder)
