"""Chapter results as JSON (``RESULTS_DIR/<chapter>.json``): what a chapter computed, written where tests and the claims page read it.

Every chapter that states findings has a ``RESULTS_DIR`` parameter. When it is set (the book runner always sets it,
to ``book/_executed/results/``; tests set it to a temporary folder), the chapter's last cell calls
:func:`write_results` with the numbers its prose shows, and they land in ``RESULTS_DIR/<chapter>.json``. The claims page
and the tests read them back with :func:`read_results`, so a verdict can never drift from the chapter that computed it.

Values are made JSON-safe on the way out: numpy scalars become Python numbers, NaN and infinities become ``null``
(strict JSON), DataFrames become lists of records. Writes are atomic, so a killed run leaves the old file or none.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from rmlib.storage import atomic
from rmlib.errors import RmlibError

__all__ = ["ResultsError", "results_path", "write_results", "read_results", "jsonable"]


class ResultsError(RmlibError, RuntimeError):
    """A chapter's results file is missing or unreadable; the message says which chapter to run."""


def results_path(name: str, results_dir: str | os.PathLike) -> Path:
    """Where chapter ``name`` writes its results inside ``results_dir``."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"chapter name {name!r} is not a plain notebook name")
    return Path(results_dir) / f"{name}.json"


def jsonable(value: Any) -> Any:
    """``value`` with numpy/pandas types turned into plain Python, NaN/inf into None, tuples into lists."""
    import numpy as np
    import pandas as pd

    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(v) for v in value]
    if isinstance(value, pd.DataFrame):
        return jsonable(value.to_dict(orient="records"))
    if isinstance(value, pd.Series):
        return jsonable(value.to_dict())
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else None
    if value is None or isinstance(value, str):
        return value
    if value is pd.NA or value is pd.NaT:
        return None
    return str(value)


def write_results(name: str, results: dict, results_dir: str | os.PathLike | None) -> Path | None:
    """Write ``results`` to ``results_dir/<name>.json`` (atomically); do nothing when ``results_dir`` is None."""
    if results_dir is None:
        return None
    if not isinstance(results, dict):
        raise TypeError(f"results must be a dict, got {type(results).__name__}")
    target = results_path(name, results_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_bytes(target, json.dumps(jsonable(results), indent=1, allow_nan=False).encode("utf-8"))
    return target


def read_results(name: str, results_dir: str | os.PathLike) -> dict:
    """The results chapter ``name`` wrote into ``results_dir``; a clear error when it has not run."""
    p = results_path(name, results_dir)
    if not p.is_file():
        raise ResultsError(f"no results from chapter {name!r} in {Path(results_dir)}: run it first "
                           f"(`python -m rmlib.book run {name}`, or `make book`)")
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ResultsError(f"{p} is not valid JSON ({e}); rerun chapter {name!r}") from None
