"""Typed records stored as one hashed, strict-JSON file each: what a run computed, kept so that a later reader gets
exactly those numbers or a clear refusal, never a silently changed or misread one.

A record type is a closed pydantic model (:class:`StoredRecord`) built of plain fields, :class:`Section` (a named
group of fields), :class:`Record` (a row of a table whose other columns are kept), :data:`Num`, :data:`Table` and
:data:`JsonData`. :func:`write_record` stores it atomically (a killed run leaves the old file or none) as
``{"schema": {"type": ..., "version": ...}, "sha256": ..., <fields>}``: the sha256 is of the other fields as
canonical JSON (sorted keys, no spaces), so a changed number is caught; the schema tag lets a reader refuse a file of
another type or version rather than misread it. :func:`read_record` serves a file only after both checks, and
:func:`record_problem` says why one cannot be served (what ``rmlib verify`` reports). Values are made JSON-safe on the
way in: numpy scalars become Python numbers, NaN and infinities become ``null`` (strict JSON), DataFrames lists of
records.

Who writes a file and how it is made again are the type's words (``WRITTEN_BY``, ``REMAKE``) or the caller's
(``remake=``): rmlib does not know what a record is for. The book's chapters' results
(:class:`rmbook.results.ChapterResults`) are such records; the file format must not change, or every results file
written before would be refused (``tests/unit/storage/old_files/`` holds one written by an earlier rmlib).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path
from typing import Annotated, Any, ClassVar, TypeVar

import numpy as np
import pandas as pd
from pydantic import BaseModel, BeforeValidator, ConfigDict, JsonValue, ValidationError, model_validator

from rmlib.errors import RmlibError
from rmlib.storage import atomic

__all__ = ["RecordError", "StoredRecord", "Section", "Record", "Num", "Table", "JsonData", "HASH_FIELD", "jsonable",
           "write_record", "read_record", "record_problem", "is_tagged"]

HASH_FIELD = "sha256"  # of the file's other fields (canonical JSON), written with them: a changed number is caught
SCHEMA_FIELD = "schema"
ITS_WRITER = "its writer"
REMAKE_IT = "make it again with what wrote it"


class RecordError(RmlibError, RuntimeError):
    """A stored record is missing, unreadable, changed since it was written, or of another type; the message says
    how to make it again."""


def jsonable(value: Any) -> Any:
    """``value`` with numpy/pandas types turned into plain Python, NaN/inf into None, tuples into lists."""
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


def _finite_or_none(value: Any) -> Any:
    value = jsonable(value)
    if value is not None and not isinstance(value, (int, float)):
        raise ValueError(f"expected a number, got {value!r}")
    return value


#: A number that a run may not have (NaN, infinity and None are all stored as ``null``).
Num = Annotated[float | None, BeforeValidator(_finite_or_none)]
#: Any JSON-able value (frames, arrays and numpy scalars are converted): for what is shown, not what is judged.
JsonData = Annotated[JsonValue, BeforeValidator(jsonable)]
#: A table shown or diffed but not read field by field: a DataFrame (or records) as a list of JSON records.
Table = Annotated[list[dict[str, JsonValue]], BeforeValidator(jsonable)]


def _plain(value: Any) -> Any:
    """Frames, series, arrays and numpy scalars made plain (NaN -> None) all through dicts and lists, leaving typed
    records alone: so a field can be given a DataFrame, and a NaN given to a plain ``float`` field is refused when the
    record is built (declare it :data:`Num`), not when it is read back."""
    if isinstance(value, BaseModel):
        return value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return jsonable(value)


class _Plain(BaseModel):
    @model_validator(mode="before")
    @classmethod
    def _plain_input(cls, data: Any) -> Any:
        return _plain(data) if isinstance(data, dict) else data


class Record(_Plain):
    """One row of a table that a reader reads: the fields it reads are declared (and checked), the table's other
    columns are kept as they are. Build a ``list[MyRecord]`` field straight from a DataFrame."""

    model_config = ConfigDict(extra="allow", frozen=True)


class Section(_Plain):
    """A named group of fields inside a stored record (one data set's run, one test's numbers): closed like the
    record, so an unknown field is refused when the record is built."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class StoredRecord(_Plain):
    """Base of a record type stored as one file. A subclass bumps ``SCHEMA_VERSION`` whenever a field is renamed,
    removed or retyped, so a stored file of the old shape is refused rather than misread. ``WRITTEN_BY`` and
    ``REMAKE`` (``{name}``: the file's name without ``.json``) say who writes its files and how a missing or damaged
    one is made again, in every refusal."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    SCHEMA_VERSION: ClassVar[int] = 1
    WRITTEN_BY: ClassVar[str] = ITS_WRITER
    REMAKE: ClassVar[str] = REMAKE_IT

    @classmethod
    def schema_tag(cls) -> dict[str, Any]:
        return {"type": cls.__name__, "version": cls.SCHEMA_VERSION}


R = TypeVar("R", bound=StoredRecord)


def _digest(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
                          .encode("utf-8")).hexdigest()


def write_record(record: StoredRecord, path: str | os.PathLike) -> Path:
    """Write ``record`` to ``path`` (atomically, its folder made) with its schema tag and the sha256 of its content."""
    if not isinstance(record, StoredRecord):
        raise TypeError(f"record must be a stored record type (a StoredRecord), got {type(record).__name__}")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    body = {SCHEMA_FIELD: type(record).schema_tag(), **jsonable(record.model_dump(mode="python"))}
    data = {SCHEMA_FIELD: body[SCHEMA_FIELD], HASH_FIELD: _digest(body),
            **{k: v for k, v in body.items() if k != SCHEMA_FIELD}}
    atomic.write_bytes(target, json.dumps(data, indent=1, allow_nan=False).encode("utf-8"))
    return target


def _words(path: Path, as_type: type[StoredRecord] | None, remake: str | None,
           writer: str | None) -> tuple[str, str]:
    """(who wrote ``path``, how to make it again): the type's words, else the caller's, else rmlib's own."""
    name = path.stem
    if as_type is not None:
        return as_type.WRITTEN_BY.format(name=name), as_type.REMAKE.format(name=name)
    return writer or ITS_WRITER, remake or REMAKE_IT


def _verified(p: Path, writer: str, remake: str) -> dict:
    """The JSON of record file ``p`` without its hash, after checking the hash (a RecordError ending with ``remake``
    when the file is not a JSON object, has no hash, holds a number JSON cannot hold, or was changed since
    ``writer`` wrote it)."""
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise RecordError(f"{p} is not valid JSON ({e}); {remake}") from None
    if not isinstance(data, dict):
        raise RecordError(f"{p} does not hold a stored record (a JSON object); {remake}")
    stored = data.pop(HASH_FIELD, None)
    if stored is None:
        raise RecordError(f"{p} has no {HASH_FIELD}: it was written before records carried their hash; {remake}")
    try:
        digest = _digest(data)
    except ValueError:  # NaN, Infinity or 1e999 (read as inf): records are written as strict JSON, never with one
        raise RecordError(f"{p} holds a number that is not finite (NaN, Infinity, or one too large such as 1e999), "
                          f"which no record is written with: it was edited or damaged; {remake}") from None
    if stored != digest:
        raise RecordError(f"{p} was changed after {writer} wrote it (its content no longer matches its "
                          f"{HASH_FIELD}); {remake}")
    return data


def record_problem(path: str | os.PathLike, as_type: type[StoredRecord] | None = None, remake: str | None = None,
                   writer: str | None = None) -> str | None:
    """Why record file ``path`` cannot be served (missing, not JSON, no hash, changed since it was written), or None
    when it is intact. ``as_type``: its type, whose words say who wrote it and how it is made again; else ``writer``
    and ``remake``, the caller's words."""
    p = Path(path)
    if not p.is_file():
        return f"its file {p} is missing"
    try:
        _verified(p, *_words(p, as_type, remake, writer))
    except RecordError as e:
        return str(e)
    return None


def read_record(path: str | os.PathLike, as_type: type[R] | None = None, remake: str | None = None,
                writer: str | None = None) -> R | dict:
    """Record file ``path``, verified: validated into ``as_type`` when given (a file of another type or schema
    version, or one without a schema tag, is refused), else its JSON as a dict. ``writer`` and ``remake``: who wrote
    it and how to make it again, when no type is given (the type's ``WRITTEN_BY`` and ``REMAKE`` otherwise)."""
    p = Path(path)
    writer, again = _words(p, as_type, remake, writer)
    if not p.is_file():
        raise RecordError(f"{p} does not exist; {again}")
    data = _verified(p, writer, again)
    if as_type is None:
        return data
    tag = data.pop(SCHEMA_FIELD, None)
    if tag is None:
        raise RecordError(f"{p} has no schema tag: it was written before its records were typed; {again}")
    if tag != as_type.schema_tag():
        raise RecordError(f"{p} holds {tag.get('type')} v{tag.get('version')}, not {as_type.__name__} "
                          f"v{as_type.SCHEMA_VERSION}: another type, or another version of it, wrote it; {again}")
    try:
        return as_type.model_validate(data)
    except ValidationError as e:
        raise RecordError(f"{p} does not fit {as_type.__name__} ({e.error_count()} problems; first: "
                          f"{e.errors()[0]['loc']}: {e.errors()[0]['msg']}); {again}") from None


def is_tagged(path: str | os.PathLike) -> bool:
    """Whether ``path`` holds a JSON object with the schema tag :func:`write_record` writes (a record of some type,
    intact or not), without checking anything else: a stray JSON file in a folder of records has none."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and isinstance(data.get(SCHEMA_FIELD), dict) and "type" in data[SCHEMA_FIELD]
