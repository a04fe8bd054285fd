"""Where rmlib reads data and writes caches.

Everything is configurable through environment variables so that a notebook,
the CLI and the tests agree without passing paths around.
"""
import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def data_dir() -> Path:
    """Verified research data (filled by `make data` / `rmlib data fetch`)."""
    return Path(os.environ.get("RMLIB_DATA_DIR", PROJECT_ROOT / "data" / "external")).resolve()


BOOK_EXECUTED = PROJECT_ROOT / "book" / "_executed"  # where the book's runner writes executed chapters
RESULTS_SUBDIR = "results"  # the chapters' results, inside any folder of executed chapters


def book_results_dir() -> Path:
    """Where the book's own runs keep the chapters' results (``book/_executed/results``), which ``rmlib verify``
    checks unless given another folder; the book's runner writes there (``rmbook.book.chapters.results_dir``)."""
    return (BOOK_EXECUTED / RESULTS_SUBDIR).resolve()


RERUNS_SUBDIR = "reruns"  # a chapter rerun with parameters of its own: reruns/<name>-<key>/, its own executed folder


def book_results_dirs() -> list[Path]:
    """The book's results folder (:func:`book_results_dir`) and every rerun's (``book/_executed/reruns/<name>-<key>/
    results``, where ``rmlib book run NAME`` with parameters of its own writes: ``rmbook.book.reruns``): what the
    default ``rmlib verify`` checks."""
    reruns = sorted(p.resolve() for p in (BOOK_EXECUTED / RERUNS_SUBDIR).glob(f"*/{RESULTS_SUBDIR}") if p.is_dir())
    return [book_results_dir(), *reruns]


def cache_dir() -> Path:
    """Sweep shards, trained checkpoints and assembled model files."""
    return Path(os.environ.get("RMLIB_CACHE_DIR", PROJECT_ROOT / ".cache" / "rmlib")).resolve()


def mirror_dir() -> Path | None:
    """A local mirror of the raw data (e.g. ../shared/data), if one is configured or found."""
    env = os.environ.get("RMLIB_DATA_MIRROR")
    if env:
        return Path(env).resolve()
    default = PROJECT_ROOT.parent / "shared" / "data"
    return default.resolve() if default.is_dir() else None


def progress_enabled(requested: bool = True) -> bool:
    """Progress bars unless asked not to; TQDM_DISABLE (set by the book runner) wins, so pages carry no bar widgets."""
    return bool(requested) and os.environ.get("TQDM_DISABLE", "").lower() not in ("1", "true", "yes")


PROGRESS_FILE_ENV = "RMLIB_PROGRESS_FILE"


class _AppendingFile:
    """A file-like object that appends each write to ``path`` (opened per write, so no handle outlives a bar)."""

    def __init__(self, path: str):
        self.path = path

    def write(self, text: str) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(text)

    def flush(self) -> None:
        pass


def progress_bar(iterable=None, *, progress: bool = True, **kwargs):
    """A tqdm progress bar for rmlib's long loops (sweeps, answer sets, GCG, training, plans).

    Why not plain tqdm: in the book (TQDM_DISABLE set) a page must carry no bar widgets, yet a 45-minute chapter must
    not look hung in `make book`. When the book runner names a progress file (RMLIB_PROGRESS_FILE), the bar is
    written there as text (every 10 s, with tqdm's own rate and ETA) instead of to the page, and the runner prints
    its latest state (whatever ``progress`` says: the file is never shown on a page). Otherwise: an ordinary bar,
    unless ``progress`` is False or TQDM_DISABLE is set.
    """
    path = os.environ.get(PROGRESS_FILE_ENV)
    if path:
        from tqdm import tqdm as text_tqdm
        # disable=False explicitly: tqdm reads TQDM_DISABLE from the environment as a default for every bar
        return text_tqdm(iterable, file=_AppendingFile(path), mininterval=10, ascii=True, disable=False,
                         **kwargs)
    from tqdm.auto import tqdm
    return tqdm(iterable, disable=not progress_enabled(progress), **kwargs)


def latest_progress(path: str | os.PathLike) -> str | None:
    """The last state a progress bar wrote to ``path`` (bars rewrite their line with carriage returns)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    parts = [p.strip() for p in text.replace("\n", "\r").split("\r") if p.strip()]
    return parts[-1] if parts else None
