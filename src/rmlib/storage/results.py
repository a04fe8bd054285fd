"""Chapter results as typed objects stored as JSON (``RESULTS_DIR/<chapter>.json``): what a chapter computed, written
where tests and the claims page read it.

Each chapter's analysis module defines one results type, a subclass of :class:`ChapterResults` (a pydantic model), and
one function that builds it. The chapter's last cell calls :func:`write_results` with it when ``RESULTS_DIR`` is set
(the book runner always sets it, to ``book/_executed/results/``; tests set a temporary folder). The claims page reads
it back with :func:`read_results` and the type, by attribute, so a renamed field is an error in a unit test rather
than a silently untestable claim.

The file carries its schema (``{"schema": {"type": ..., "version": ...}, ...}``); reading a file of another type, of
another version or from before results were typed is a clear error that says which chapter to rerun. Values are made
JSON-safe on the way in: numpy scalars become Python numbers, NaN and infinities become ``null`` (strict JSON),
DataFrames become lists of records. Writes are atomic, so a killed run leaves the old file or none.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, JsonValue, ValidationError, model_validator

from rmlib.storage import atomic
from rmlib.errors import RmlibError

__all__ = ["ResultsError", "ChapterResults", "Section", "Record", "Num", "Table", "JsonData", "results_path", "write_results",
           "read_results", "results_problem", "jsonable"]


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
    results are built (declare it :data:`Num`), not when they are read back."""
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
    """One row of a table that the claims page reads: the fields it reads are declared (and checked), the table's
    other columns are kept as they are. Build a ``list[MyRecord]`` field straight from a DataFrame."""

    model_config = ConfigDict(extra="allow", frozen=True)


class Section(_Plain):
    """A named group of fields inside a chapter's results (one data set's run, one test's numbers): closed like the
    results type, so an unknown field is refused when the results are built."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ChapterResults(_Plain):
    """Base of every chapter's results type. A subclass declares ``CHAPTERS`` (the chapter names it serves; one
    template can serve several) and bumps ``SCHEMA_VERSION`` whenever a field is renamed, removed or retyped, so a
    stored file of the old shape is refused rather than misread. ``WRITTEN_BY`` and ``REMAKE`` (``{name}``: the
    file's name) say who writes its file and how a missing or damaged one is made again: a chapter's run, unless a
    type whose file is made otherwise (a value card's ``card.json``, by ``rmlib card MODEL``) says so."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    CHAPTERS: ClassVar[tuple[str, ...]] = ()
    SCHEMA_VERSION: ClassVar[int] = 1
    WRITTEN_BY: ClassVar[str] = "chapter {name!r}"
    REMAKE: ClassVar[str] = "rerun chapter {name!r} (`rmlib book run {name}`)"

    @classmethod
    def schema_tag(cls) -> dict[str, Any]:
        return {"type": cls.__name__, "version": cls.SCHEMA_VERSION}


R = TypeVar("R", bound=ChapterResults)


def write_results(results: ChapterResults, results_dir: str | os.PathLike | None,
                  chapter: str | None = None) -> Path | None:
    """Write ``results`` to ``results_dir/<chapter>.json`` (atomically) with its schema tag; do nothing when
    ``results_dir`` is None. ``chapter`` defaults to the type's one chapter; a type serving several needs it."""
    if not isinstance(results, ChapterResults):
        raise TypeError(f"results must be a chapter's results type (a ChapterResults), got {type(results).__name__}")
    cls = type(results)
    if chapter is None:
        if len(cls.CHAPTERS) != 1:
            raise ValueError(f"{cls.__name__} serves chapters {cls.CHAPTERS}: say which one with chapter=")
        chapter = cls.CHAPTERS[0]
    elif chapter not in cls.CHAPTERS:
        raise ValueError(f"{cls.__name__} holds the results of {cls.CHAPTERS}, not of chapter {chapter!r}")
    if results_dir is None:
        return None
    target = results_path(chapter, results_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    body = {"schema": cls.schema_tag(), **jsonable(results.model_dump(mode="python"))}
    data = {"schema": body["schema"], HASH_FIELD: _digest(body), **{k: v for k, v in body.items() if k != "schema"}}
    atomic.write_bytes(target, json.dumps(data, indent=1, allow_nan=False).encode("utf-8"))
    return target


HASH_FIELD = "sha256"  # of the file's other fields (canonical JSON), written with them: a changed number is caught


def _digest(body: dict) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
                          .encode("utf-8")).hexdigest()


def _maker(name: str, as_type: type[ChapterResults] | None, chapter: bool) -> tuple[str, str]:
    """(who wrote results file ``name``, how to make it again): the type's own words when the caller knows the
    type, a chapter's run for a chapter, else that the file is no chapter's (a stray file in a results folder)."""
    if as_type is not None:
        return as_type.WRITTEN_BY.format(name=name), as_type.REMAKE.format(name=name)
    if chapter:
        return ChapterResults.WRITTEN_BY.format(name=name), ChapterResults.REMAKE.format(name=name)
    return "its writer", (f"{name}.json is not a chapter's results file (no chapter {name!r} ran here, and it "
                          "carries no chapter's schema tag): move it out of the results folder")


def _verified(p: Path, name: str, maker: tuple[str, str] | None = None) -> dict:
    """The JSON of results file ``p`` without its hash, after checking the hash (a ResultsError saying how to make
    it again, ``maker`` (:func:`_maker`; default: rerun chapter ``name``), when the file is not JSON, has no hash,
    holds a number JSON cannot hold, or was changed after it was written)."""
    writer, rerun = maker or _maker(name, None, True)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise ResultsError(f"{p} is not valid JSON ({e}); {rerun}") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{p} does not hold a chapter's results (a JSON object); {rerun}")
    stored = data.pop(HASH_FIELD, None)
    if stored is None:
        raise ResultsError(f"{p} has no {HASH_FIELD}: it was written before results carried their hash; {rerun}")
    try:
        digest = _digest(data)
    except ValueError:  # NaN, Infinity or 1e999 (read as inf): results are written as strict JSON, never with one
        raise ResultsError(f"{p} holds a number that is not finite (NaN, Infinity, or one too large such as 1e999), "
                           f"which no results file is written with: it was edited or damaged; {rerun}") from None
    if stored != digest:
        raise ResultsError(f"{p} was changed after {writer} wrote it (its content no longer matches its "
                           f"{HASH_FIELD}); {rerun}")
    return data


def results_problem(name: str, results_dir: str | os.PathLike, as_type: type[ChapterResults] | None = None,
                    chapter: bool = True) -> str | None:
    """Why results file ``name`` in ``results_dir`` cannot be served (missing, not JSON, no hash, changed since it
    was written), or None when it is intact. The book's stamps ask this before calling a chapter current.
    ``as_type``: its type, whose words say how it is made again; ``chapter=False``: a file not known to be any
    chapter's (`rmlib verify` on a results folder), which is said instead of a chapter to rerun."""
    p = results_path(name, results_dir)
    if not p.is_file():
        return f"its results file {p} is missing"
    try:
        _verified(p, name, _maker(name, as_type, chapter))
    except ResultsError as e:
        return str(e)
    return None


def read_results(name: str, results_dir: str | os.PathLike, as_type: type[R] | None = None) -> R | dict:
    """The results chapter ``name`` wrote into ``results_dir``: validated into ``as_type`` when given (a file of
    another type or schema version, or an old untyped one, is refused), else the stored JSON as a dict. A clear error
    when the chapter has not run."""
    p = results_path(name, results_dir)
    maker = _maker(name, as_type, True)
    rerun = maker[1]
    if not p.is_file():
        if as_type is not None and as_type.REMAKE != ChapterResults.REMAKE:
            raise ResultsError(f"{p} does not exist; {rerun}")
        raise ResultsError(f"no results from chapter {name!r} in {Path(results_dir)}: run it first "
                           f"(`rmlib book run {name}`, or `make book`)")
    data = _verified(p, name, maker)
    if as_type is None:
        return data
    tag = data.pop("schema", None)
    if tag is None:
        raise ResultsError(f"{p} has no schema tag: it was written before results were typed; {rerun}")
    if tag != as_type.schema_tag():
        raise ResultsError(f"{p} holds {tag.get('type')} v{tag.get('version')}, not {as_type.__name__} "
                           f"v{as_type.SCHEMA_VERSION}: it comes from another chapter or another rmlib; {rerun}")
    if name not in as_type.CHAPTERS:
        raise ResultsError(f"{as_type.__name__} holds chapters {as_type.CHAPTERS}, not {name!r}")
    try:
        return as_type.model_validate(data)
    except ValidationError as e:
        raise ResultsError(f"{p} does not fit {as_type.__name__} ({e.error_count()} problems; first: "
                           f"{e.errors()[0]['loc']}: {e.errors()[0]['msg']}); {rerun}") from None
