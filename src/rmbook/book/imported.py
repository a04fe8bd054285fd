"""What a chapter's kernel imported: the rmlib and rmbook source files a run depended on, recorded as it ran.

A chapter's numbers and sentences come from the modules of the two packages its kernel imported and the prose
templates it rendered, and from nothing else in them. Hashing every file of the package made any edit (one chart's
colour, another chapter's analysis) stale all seventeen chapters. So the runner appends one cell to the chapter,
:func:`recording_cell`, that writes those files' paths to the file named by :data:`RECORD_ENV`; it then removes
the cell from the page (:func:`drop_recording`) and the stamp hashes only the files recorded
(:func:`rmbook.book.stamps.dependencies`).

The cell also records the ``local:`` models the kernel keyed or loaded, each with its content fingerprint
(:data:`rmlib.trained.FINGERPRINTED`), which the stamp keeps (:func:`read_models`): a page that swept an RM the
fine-tuning chapter trained is stale once that RM is retrained with other weights, and only then. And it records
where the kernel's time went, by phase (:mod:`rmlib.costs`), which the stamp keeps for the book's cost table.

What cannot be seen from the kernel makes the record incomplete, and an incomplete record hashes every file, as
before: a run that used Ray (its workers import in other processes), a kernel that failed before the last cell.
A module imported under a branch the run did not take is not a dependency: if an edit to a recorded module makes
the branch taken, that edit is itself in the record.
"""
from __future__ import annotations

import json
from pathlib import Path

from rmlib.storage.atomic import write_bytes

__all__ = ["RECORD_ENV", "RECORD_TAG", "recording_cell", "drop_recording", "read_record", "read_models", "read_costs"]

RECORD_ENV = "RMLIB_IMPORTED_FILE"  # where the recording cell writes; set by the runner for the kernel
RECORD_TAG = "rmlib-record-imports"  # the cell's tag, by which the runner removes it from the page

# Plain Python with no import of the packages (importing rmbook.book here would record the whole book package).
# Files are relative to the folder that holds both packages (src/, rmbook.book.stamps.SOURCE_ROOT), prose templates
# included (rmbook.report.prose.render records them by that path as it reads them).
RECORD_SOURCE = '''\
import json as _json, os as _os, sys as _sys
_target = _os.environ.get("RMLIB_IMPORTED_FILE")
if _target and "rmlib" in _sys.modules:
    _root = _os.path.dirname(_os.path.dirname(_os.path.abspath(_sys.modules["rmlib"].__file__)))
    _files = set()
    for _name, _m in list(_sys.modules.items()):
        _f = getattr(_m, "__file__", None)
        if _name.split(".")[0] in ("rmlib", "rmbook") and _f:
            _files.add(_os.path.relpath(_os.path.abspath(_f), _root))
    _render = _sys.modules.get("rmbook.report.prose.render")
    for _t in (getattr(_render, "LOADED_TEMPLATES", ()) if _render else ()):
        _files.add(_t)
    _trained = _sys.modules.get("rmlib.trained")
    _costs = _sys.modules.get("rmlib.costs")
    _record = {"files": sorted(_files), "complete": "ray" not in _sys.modules,
               "models": dict(getattr(_trained, "FINGERPRINTED", None) or {}),
               "costs": _costs.totals() if _costs else {}}
    with open(_target, "w", encoding="utf-8") as _out:
        _json.dump(_record, _out)
'''


def recording_cell() -> dict:
    """The cell the runner appends to a chapter: it records what the kernel imported, then leaves the page."""
    return {"cell_type": "code", "execution_count": None, "id": "rmlib-record-imports",
            "metadata": {"tags": [RECORD_TAG]}, "outputs": [], "source": RECORD_SOURCE}


def drop_recording(notebook: str | Path) -> None:
    """Remove the recording cell from an executed notebook (the page never shows it)."""
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    kept = [c for c in nb.cells if RECORD_TAG not in c.get("metadata", {}).get("tags", [])]
    if len(kept) != len(nb.cells):
        nb.cells = kept
        write_bytes(notebook, nbformat.writes(nb).encode("utf-8"))


def read_record(path: str | Path) -> list[str] | None:
    """The files a run recorded (relative to the folder of the packages), or None when the record is missing,
    unreadable or incomplete: the stamp then hashes every file of the packages."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        files = record["files"]
        if record.get("complete") is not True or not all(isinstance(f, str) for f in files):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return sorted({Path(f).as_posix() for f in files})


def read_models(path: str | Path) -> dict[str, dict[str, str]]:
    """The ``local:`` models a run keyed or loaded, {id: {"path": its folder, "fingerprint": its content}} (empty
    when the record is missing or has none: a run in Ray workers, whose models are keyed in other processes, is
    stale by every file instead)."""
    try:
        models = json.loads(Path(path).read_text(encoding="utf-8")).get("models") or {}
    except (OSError, ValueError, AttributeError):
        return {}
    if not isinstance(models, dict):
        return {}
    return {str(k): {"path": str(v["path"]), "fingerprint": str(v["fingerprint"])} for k, v in models.items()
            if isinstance(v, dict) and {"path", "fingerprint"} <= set(v)}


def read_costs(path: str | Path) -> dict:
    """The time and FLOPs of each phase of the run ({phase: {seconds, flops, calls}}, :mod:`rmlib.costs`), as its
    kernel counted them; empty when the record is missing or has none."""
    try:
        found = json.loads(Path(path).read_text(encoding="utf-8")).get("costs") or {}
    except (OSError, ValueError, AttributeError):
        return {}
    return found if isinstance(found, dict) else {}
