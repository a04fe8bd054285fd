"""The book's chapters: which exist (``_toc.yml``), where their templates and parameters are, and their order.

Layout (all paths relative to the repository root):

* ``notebooks/<template>.ipynb``       a chapter template; its ``parameters`` cell holds tiny defaults (tests)
* ``src/rmbook/chapters/<name>/``      the chapter's own folder (:mod:`rmbook.chapters`), holding among others
* ``.../<name>/params.yaml``           full-run values of chapter ``<name>``, used by ``make book``
* ``.../<name>/params.test.yaml``      what its tests run it with, on top of the tiny defaults (optional)
* ``.../<name>/params.course.yaml``    the course edition's values (optional, :mod:`rmbook.book.course`)
* ``book/_executed/<name>.ipynb``      papermill output, rendered by the book (git-ignored)
* ``book/_executed/results/<name>.json``  the chapter's numbers (``RESULTS_DIR``, :mod:`rmbook.results`)

Most chapters are the template of the same name. A template may instead serve several chapters (the Big Two and
Moral Foundations chapters share ``value_profiles.ipynb``): its notebook metadata ``rmlib.chapters`` maps each
chapter name to that chapter's own defaults (applied before its parameter file), and a cell whose metadata
``rmlib.chapters`` lists chapter names is kept only in those chapters' pages. Each chapter keeps its own page,
parameter file, stamp and results; a template that declares ``CHAPTER`` gets the chapter's name in it.

A chapter whose parameters cell declares ``RESULTS_DIR`` always gets one from the runner (``<output_dir>/results``,
unless the caller sets it). A chapter whose notebook metadata lists ``rmlib.reads_results`` runs after those chapters
and refuses to run while one of their results is missing; ``"claimed"`` there (the claims page) stands for every
chapter that the chapters' claims read (:func:`rmbook.analysis.claims.source_chapters`: derived, not listed).

:func:`chapter` resolves all of this once into a :class:`Chapter`, which the runner, the stamps and the chapter
tests use; the functions below that take a name are shorthands for it.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from rmbook import analysis  # a lazy face: its claims load only when the claims page is resolved (not in a kernel)
from rmbook.book.parameter_check import unknown_parameter_hint
from rmbook.chapters import FOLDER, NOTEBOOKS
from rmbook.paths import BOOK_EXECUTED, RESULTS_SUBDIR, ROOT
from rmlib.errors import RmlibError
from rmbook.results import results_path

__all__ = ["ROOT", "NOTEBOOKS", "CHAPTERS", "param_file", "EXECUTED", "TOC", "RESULTS_PARAMETER", "CHAPTER_PARAMETER",
           "BookError",
           "Chapter", "chapter", "chapters", "template", "chapter_defaults", "chapter_cells", "declares_results", "reads_results", "results_dir", "declared_parameters", "parameters",
           "with_results_dir", "missing_results", "in_run_order"]

CHAPTERS = FOLDER  # src/rmbook/chapters/: one folder per chapter
EXECUTED = BOOK_EXECUTED
TOC = ROOT / "_toc.yml"
RESULTS_PARAMETER = "RESULTS_DIR"  # the one parameter through which every chapter writes its results
CHAPTER_PARAMETER = "CHAPTER"      # a template serving several chapters learns which one it runs as
CLAIMED = "claimed"  # rmlib.reads_results of a page that reads what every chapter's claims read (the claims page)


class BookError(RmlibError, RuntimeError):
    """A notebook, its parameters or the book build failed; the message says how to fix it."""


def param_file(name: str, kind: str = "") -> Path:
    """Chapter ``name``'s parameter file in its folder: ``params.yaml`` (the full run), or ``params.<kind>.yaml``
    (``kind`` ``test`` or ``course``); the path, whether or not the file exists."""
    return CHAPTERS / name / ("params.yaml" if not kind else f"params.{kind}.yaml")


def chapters(toc: Path = TOC) -> list[str]:
    """Names of the notebooks the table of contents takes from ``book/_executed/``, in book order."""
    if not Path(toc).is_file():
        raise BookError(f"{toc} not found: the book's table of contents must be at the repository top level")
    data = yaml.safe_load(Path(toc).read_text(encoding="utf-8")) or {}
    names: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            f = node.get("file")
            if isinstance(f, str) and f.startswith("book/_executed/"):
                names.append(Path(f).stem)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(data)
    return names


def _shared_templates() -> dict[str, tuple[Path, dict]]:
    """{chapter: (template, the chapter's defaults)} for templates whose metadata lists ``rmlib.chapters``."""
    out = {}
    for p in sorted(NOTEBOOKS.glob("*.ipynb")):
        try:
            meta = json.loads(p.read_text(encoding="utf-8")).get("metadata", {}).get("rmlib", {})
        except ValueError as e:
            raise BookError(f"{p} is not a valid notebook: {e}") from None
        variants = meta.get("chapters")
        if variants is None:
            continue
        if not isinstance(variants, dict) or not all(isinstance(v, dict) for v in variants.values()):
            raise BookError(f"{p}: metadata rmlib.chapters must map chapter names to their default parameters")
        for name, defaults in variants.items():
            if name in out:
                raise BookError(f"chapter {name} is listed by two templates: {out[name][0]} and {p}")
            out[name] = (p, dict(defaults))
    return out


def _find_template(name: str) -> tuple[Path, dict]:
    """The notebook that chapter ``name`` runs (``notebooks/<name>.ipynb``, or the shared template listing it) and
    the chapter's own defaults in it."""
    p = NOTEBOOKS / f"{name}.ipynb"
    if p.is_file():
        return p, {}
    shared = _shared_templates()
    if name in shared:
        return shared[name][0], dict(shared[name][1])
    plain = [q.stem for q in NOTEBOOKS.glob("*.ipynb") if q.stem not in {t.stem for t, _ in shared.values()}]
    raise BookError(f"no notebook template for chapter {name!r}; known chapters: {sorted(plain + list(shared))}")


def _read_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BookError(f"parameter file {path} not found") from None
    except UnicodeDecodeError:
        raise BookError(f"parameter file {path} is not a text file (not UTF-8): it should be YAML, NAME: value") from None
    except yaml.YAMLError as e:
        raise BookError(f"parameter file {path} is not valid YAML: {e}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise BookError(f"parameter file {path} must hold a mapping of NAME: value, got {type(data).__name__}")
    return data


TEST_KEYS = {"parameters", "isolated_cache"}


def merge_sources(sources: list[tuple]) -> dict:
    """The parameters of :meth:`Chapter.sources`, later sources winning."""
    merged: dict = {}
    for _, values in sources:
        merged.update(values)
    return merged


def _declares(nb: dict, parameter: str) -> bool:
    for cell in nb.get("cells", []):
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            return re.search(rf"^{parameter}\s*=", "".join(cell.get("source", "")), flags=re.M) is not None
    return False


@dataclass(frozen=True)
class Chapter:
    """One chapter, resolved once: its template (and the notebook JSON), its own defaults when it shares the
    template, its full-run and test parameter files, whether it writes results and which chapters' results it reads.

    ``test_parameters`` and ``test_isolated_cache`` come from the chapter's ``params.test.yaml``
    (``parameters:`` a mapping on top of the tiny defaults; ``isolated_cache: true`` when the tests must point
    ``RMLIB_CACHE_DIR`` at a cache folder of the run's own, emptied whenever the run executes, for chapters that
    sweep or train tiny random models: tests/chapters/conftest.py)."""

    name: str
    template: Path
    notebook: dict = field(repr=False)
    defaults: dict
    params_file: Path | None
    test_parameters: dict
    test_isolated_cache: bool
    declares_results: bool
    reads: tuple[str, ...]

    def declares(self, parameter: str) -> bool:
        """Whether the parameters cell declares ``parameter`` (read from the JSON; no papermill import)."""
        return _declares(self.notebook, parameter)

    def declared_parameters(self) -> dict:
        """The template's ``parameters`` cell: {name: default}, as papermill reads it."""
        import papermill

        info = papermill.inspect_notebook(str(self.template))
        if not info:
            raise BookError(f"{self.template} has no cell tagged 'parameters' (add the tag so papermill can inject "
                            "values)")
        return {k: v["default"] for k, v in info.items()}

    def sources(self, *, tiny: bool = False, params_file=None, overrides: dict | None = None) -> list[tuple]:
        """Where a run's parameters come from, in order: (origin, values)."""
        out = []
        if self.defaults:
            out.append((f"the defaults of chapter {self.name} (notebook metadata rmlib.chapters)", self.defaults))
        if not tiny and self.params_file is not None:
            out.append((self.params_file, _read_yaml(self.params_file)))
        if params_file is not None:
            out.append((Path(params_file), _read_yaml(Path(params_file))))
        if overrides:
            out.append(("overrides", dict(overrides)))
        return out

    def check(self, sources: list[tuple]) -> None:
        """Refuse a source with keys that the parameters cell does not declare, saying which source and name."""
        declared = self.declared_parameters()
        for origin, values in sources:
            unknown = sorted(set(values) - set(declared))
            if unknown:
                named = [u + unknown_parameter_hint(u, declared) for u in unknown]
                raise BookError(f"{origin}: parameters {named} are not in the parameters cell of {self.template} "
                                f"(declared: {sorted(declared)})")

    def parameters(self, *, tiny: bool = False, params_file=None, overrides: dict | None = None,
                   validate: bool = True) -> dict:
        """Parameters for one run: :meth:`sources` merged in order; with ``validate`` every key must be declared."""
        sources = self.sources(tiny=tiny, params_file=params_file, overrides=overrides)
        if validate:
            self.check(sources)
        return merge_sources(sources)

    def cells(self) -> dict:
        """The chapter's notebook: its template without the cells kept for other chapters (metadata
        ``rmlib.chapters`` on a cell lists the chapters that show it)."""
        keep = [c for c in self.notebook.get("cells", [])
                if c.get("metadata", {}).get("rmlib", {}).get("chapters") is None
                or self.name in c["metadata"]["rmlib"]["chapters"]]
        return {**self.notebook, "cells": keep}


def chapter(name: str) -> Chapter:
    """Chapter ``name`` resolved from its files (a clear error for an unknown chapter or a damaged file)."""
    path, defaults = _find_template(name)
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise BookError(f"{path} is not a valid notebook: {e}") from None
    reads = nb.get("metadata", {}).get("rmlib", {}).get("reads_results", [])
    if reads == CLAIMED:  # the claims page: every chapter its gathered claims read, derived, not listed
        reads = analysis.claims.source_chapters()
    if not isinstance(reads, list) or not all(isinstance(n, str) for n in reads):
        raise BookError(f"{path}: metadata rmlib.reads_results must be a list of chapter names or {CLAIMED!r}")
    test_file = param_file(name, "test")
    test = _read_yaml(test_file) if test_file.is_file() else {}
    if set(test) - TEST_KEYS or not isinstance(test.get("parameters", {}), dict):
        raise BookError(f"{test_file} may hold only `parameters:` (a mapping) and `isolated_cache:`; "
                        f"found {sorted(test)}")
    params_file = param_file(name)
    if _declares(nb, CHAPTER_PARAMETER) and CHAPTER_PARAMETER not in defaults:
        defaults = {**defaults, CHAPTER_PARAMETER: name}
    return Chapter(name, path, nb, defaults, params_file if params_file.is_file() else None,
                   dict(test.get("parameters") or {}), bool(test.get("isolated_cache", False)),
                   _declares(nb, RESULTS_PARAMETER), tuple(reads))


def template(name: str) -> Path:
    """The notebook that chapter ``name`` runs: ``notebooks/<name>.ipynb``, or the shared template listing it."""
    return _find_template(name)[0]


def chapter_defaults(name: str) -> dict:
    """The parameters that make chapter ``name`` out of a shared template (empty for a template of its own)."""
    return dict(_find_template(name)[1])


def chapter_cells(name: str) -> dict:
    """Chapter ``name``'s notebook, less the cells kept for other chapters (:meth:`Chapter.cells`)."""
    return chapter(name).cells()


def declares_results(name: str) -> bool:
    """Whether the template's parameters cell declares ``RESULTS_DIR``."""
    return chapter(name).declares_results


def reads_results(name: str) -> list[str]:
    """Chapters whose results this chapter reads (notebook metadata ``rmlib.reads_results``), in order."""
    return list(chapter(name).reads)


def results_dir(output_dir: str | os.PathLike = EXECUTED) -> Path:
    """Where the runner points ``RESULTS_DIR`` for chapters executed into ``output_dir``."""
    return (Path(output_dir) / RESULTS_SUBDIR).resolve()


def declared_parameters(name: str) -> dict:
    """The template's ``parameters`` cell: {name: default}, as papermill reads it."""
    return chapter(name).declared_parameters()


def parameters(name: str, *, tiny: bool = False, params_file: str | os.PathLike | None = None,
               overrides: dict | None = None, validate: bool = True) -> dict:
    """Parameters for one run: the chapter's own defaults when it shares a template (:func:`chapter_defaults`,
    with ``CHAPTER`` set to its name when the template declares it), its ``params.yaml`` (unless ``tiny``),
    then ``params_file``, then ``overrides``. With ``validate`` every key must be declared in the template's
    parameters cell."""
    return chapter(name).parameters(tiny=tiny, params_file=params_file, overrides=overrides, validate=validate)


def with_results_dir(name: str, params: dict, output_dir: str | os.PathLike = EXECUTED) -> dict:
    """``params`` plus ``RESULTS_DIR = <output_dir>/results`` when the chapter declares it: every run by the book
    writes its results beside its page. ``RESULTS_DIR`` is the runner's, never a caller's: a rerun given the book's
    own results folder wrote the book's results for one model, with a valid hash, and the claims page judged it
    (#62), so a value set by a parameter file or ``-p`` is refused by name."""
    if params.get(RESULTS_PARAMETER) is not None:
        raise BookError(f"{name}: {RESULTS_PARAMETER}={params[RESULTS_PARAMETER]!r} is not a parameter to set: the "
                        f"runner writes a chapter's results beside its page ({results_dir(output_dir)} here), and a "
                        "rerun with parameters of its own into its own folder, never the book's. Leave it out")
    if declares_results(name):
        return {**params, RESULTS_PARAMETER: str(results_dir(output_dir))}
    return dict(params)


def missing_results(name: str, params: dict) -> list[str]:
    """The chapters ``name`` reads whose results file is absent from its ``RESULTS_DIR``."""
    sources = reads_results(name)
    if not sources:
        return []
    folder = params.get(RESULTS_PARAMETER)
    if not folder:
        return sources
    return [s for s in sources if not results_path(s, folder).is_file()]


def in_run_order(names: list[str]) -> list[str]:
    """``names`` in book order, except that a chapter reading others' results comes after those of them listed."""
    pending, done = list(names), []
    while pending:
        for n in pending:
            if not any(src in pending and src != n for src in reads_results(n)):
                done.append(n)
                pending.remove(n)
                break
        else:
            raise BookError(f"chapters {pending} read each other's results in a cycle (notebook metadata "
                            "rmlib.reads_results)")
    return done
