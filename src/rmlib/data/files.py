"""The verified local path of a data file, and the per-process caches of parsed frames."""
from __future__ import annotations

from pathlib import Path

from rmlib import config
from rmlib.data import fetch as _fetch
from rmlib.data.fetch import DataError, is_verified
from rmlib.data.manifest import find_file

__all__ = ["path", "clear_caches"]


def path(key_or_relpath: str) -> Path:
    """The verified local path of a manifest file (or of a single-file dataset's only file).

    Raises DataError telling the user to run `make data` when the file is missing or corrupt.
    """
    f = find_file(key_or_relpath)
    p = config.data_dir() / f.path
    if not p.is_file():
        raise DataError(f"{f.path} is missing from the data directory {config.data_dir()}. "
                        "Fix: run `make data` (or `rmlib data fetch`), or set RMLIB_DATA_DIR to a filled data directory")
    if not is_verified(p, f.sha256):
        raise DataError(f"{p} does not match its sha256 in the data manifest (rmlib/data/sources.yml) (corrupt or edited). "
                        "Fix: run `make data` to fetch it again")
    return p


def clear_caches() -> None:
    """Forget parsed frames (they are cached per process); needed only if RMLIB_DATA_DIR changes mid-session."""
    import functools
    import sys

    _fetch._VERIFIED.clear()
    for name, mod in list(sys.modules.items()):
        if name.startswith("rmlib.data"):
            for obj in vars(mod).values():
                if isinstance(obj, functools._lru_cache_wrapper):
                    obj.cache_clear()
