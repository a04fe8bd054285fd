"""A chapter's results as a typed record (``RESULTS_DIR/<chapter>.json``): what a chapter computed, written where
tests and the claims page read it.

Each chapter's ``types.py`` defines one results type, a subclass of :class:`ChapterResults` (a stored record of
:mod:`rmlib.storage.records`: strict JSON, a schema tag, the sha256 of its content, written atomically), and its
``results.py`` one function that builds it. The chapter's last cell calls :func:`write_results` with it when
``RESULTS_DIR`` is set (the book runner always sets it, to ``book/_executed/results/``; tests set a temporary folder).
The claims page reads it back with :func:`read_results` and the type, by attribute, so a renamed field is an error in
a unit test rather than a silently untestable claim. A file of another type, of another version, from before results
were typed, or changed since its chapter wrote it is refused with the chapter to rerun.

What a chapter is, and that ``rmlib book run`` makes its results again, is the book's: rmlib stores and verifies the
records and knows no chapter (#64 item 4). :func:`results_folders` is the ``rmlib.results_folders`` entry point: the
book's folders that ``rmlib verify`` checks by default, each with :func:`remake_in_folder`, the words it reports.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, ClassVar, TypeVar

from rmlib.storage.records import RecordError, StoredRecord, is_tagged, read_record, record_problem, write_record

from rmbook import paths

__all__ = ["ResultsError", "ChapterResults", "results_path", "write_results", "read_results", "results_problem",
           "remake_in_folder", "results_folders"]


class ResultsError(RecordError):
    """A chapter's results file is missing or unreadable; the message says which chapter to run."""


class ChapterResults(StoredRecord):
    """Base of every chapter's results type. A subclass declares ``CHAPTERS`` (the chapter names it serves; one
    template can serve several) and bumps ``SCHEMA_VERSION`` whenever a field is renamed, removed or retyped, so a
    stored file of the old shape is refused rather than misread. ``WRITTEN_BY`` and ``REMAKE`` (``{name}``: the
    file's name) say who writes its file and how a missing or damaged one is made again: a chapter's run, unless a
    type whose file is made otherwise (a value card's ``card.json``, by ``rmlib card MODEL``) says so."""

    CHAPTERS: ClassVar[tuple[str, ...]] = ()
    WRITTEN_BY: ClassVar[str] = "chapter {name!r}"
    REMAKE: ClassVar[str] = "rerun chapter {name!r} (`rmlib book run {name}`)"


R = TypeVar("R", bound=ChapterResults)


def results_path(name: str, results_dir: str | os.PathLike) -> Path:
    """Where chapter ``name`` writes its results inside ``results_dir``."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"chapter name {name!r} is not a plain notebook name")
    return Path(results_dir) / f"{name}.json"


def write_results(results: ChapterResults, results_dir: str | os.PathLike | None,
                  chapter: str | None = None) -> Path | None:
    """Write ``results`` to ``results_dir/<chapter>.json`` (atomically) with its schema tag and hash; do nothing when
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
    return write_record(results, results_path(chapter, results_dir))


def _words(name: str) -> dict[str, str]:
    """Who wrote chapter ``name``'s results file and how it is made again, for rmlib's refusals."""
    return {"writer": ChapterResults.WRITTEN_BY.format(name=name), "remake": ChapterResults.REMAKE.format(name=name)}


def results_problem(name: str, results_dir: str | os.PathLike, as_type: type[ChapterResults] | None = None) -> str | None:
    """Why chapter ``name``'s results file in ``results_dir`` cannot be served (missing, not JSON, no hash, changed
    since it was written), or None when it is intact: the book's stamps ask this before calling a chapter current.
    ``as_type``: its type, whose words say how it is made again (else: rerun the chapter)."""
    p = results_path(name, results_dir)
    if not p.is_file():
        return f"its results file {p} is missing"
    return record_problem(p, as_type, **_words(name))


def read_results(name: str, results_dir: str | os.PathLike, as_type: type[R] | None = None) -> R | dict:
    """The results chapter ``name`` wrote into ``results_dir``: validated into ``as_type`` when given (a file of
    another type or schema version, or an old untyped one, is refused), else the stored JSON as a dict. A clear error
    when the chapter has not run."""
    p = results_path(name, results_dir)
    if not p.is_file() and (as_type is None or as_type.REMAKE == ChapterResults.REMAKE):
        raise ResultsError(f"no results from chapter {name!r} in {Path(results_dir)}: run it first "
                           f"(`rmlib book run {name}`, or `make book`)")
    if as_type is not None and name not in as_type.CHAPTERS:
        raise ResultsError(f"{as_type.__name__} holds chapters {as_type.CHAPTERS}, not {name!r}")
    try:
        return read_record(p, as_type, **_words(name))
    except RecordError as e:
        raise ResultsError(str(e)) from None


def remake_in_folder(path: Path) -> str | None:
    """How results file ``path`` of a book's results folder is made again, for ``rmlib verify``: rerun its chapter
    when that chapter ran there (its executed notebook or stamp lies beside the results folder, as the book's runner
    writes them) or the file carries a record's schema tag; None for a stray file, which rmlib reports as no
    record."""
    ran = any((path.parent.parent / f"{path.stem}{ext}").is_file() for ext in (".ipynb", ".stamp"))
    return _words(path.stem)["remake"] if ran or is_tagged(path) else None


def results_folders() -> dict[Path, Callable[[Path], str | None]]:
    """The ``rmlib.results_folders`` entry point: the book's results folders (``rmbook.paths.book_results_dirs``:
    its own and every rerun's), each with how a file there is made again (:func:`remake_in_folder`)."""
    return {folder: remake_in_folder for folder in paths.book_results_dirs()}
