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
