"""Where rmlib reads data and writes caches.

Everything is configurable through environment variables so that a notebook, the CLI and the tests agree without
passing paths around. Unset, the folders are the user's (platformdirs: ``~/.local/share/rmlib`` and
``~/.cache/rmlib`` on Linux), never a place derived from where rmlib is installed: a wheel installed into
``site-packages`` writes nothing beside itself (#64 item 4). A checkout of the project sets the variables to its own
folders (``data/external``, ``.cache/rmlib``, ``../shared/data``): the Makefile exports them and the book's commands
set them when unset (``rmbook.paths.use_checkout_folders``), so `make book`, `make data` and the book's kernels use
the checkout's data and cache as they always did.
"""
import os
from pathlib import Path

import platformdirs

APP_NAME = "rmlib"  # the folder name under the user's data and cache folders
DATA_ENV, CACHE_ENV, MIRROR_ENV = "RMLIB_DATA_DIR", "RMLIB_CACHE_DIR", "RMLIB_DATA_MIRROR"


def data_dir() -> Path:
    """Verified research data (filled by `make data` / `rmlib data fetch`): $RMLIB_DATA_DIR, else the user's data
    folder (``platformdirs.user_data_path("rmlib")``)."""
    return Path(os.environ.get(DATA_ENV) or platformdirs.user_data_path(APP_NAME)).resolve()


def cache_dir() -> Path:
    """Sweep shards, trained checkpoints and assembled model files: $RMLIB_CACHE_DIR, else the user's cache folder
    (``platformdirs.user_cache_path("rmlib")``)."""
    return Path(os.environ.get(CACHE_ENV) or platformdirs.user_cache_path(APP_NAME)).resolve()


def mirror_dir() -> Path | None:
    """A local mirror of the raw data ($RMLIB_DATA_MIRROR, e.g. a checkout's ../shared/data), if one is set."""
    env = os.environ.get(MIRROR_ENV)
    return Path(env).resolve() if env else None


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
