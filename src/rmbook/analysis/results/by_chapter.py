"""A chapter's results type, found by the chapter's name: no table to edit when a chapter is added.

A chapter's type lives in its folder's ``types.py`` (:mod:`rmbook.chapters`; the claims page's own type, which has
no split, in ``claims/results.py``), and its ``CHAPTERS`` lists the chapters it serves (one template serving several:
``value_profiles/types.py`` for big_two and moral_foundations). The modules are read as text to find that list, and
only the one that holds the chapter's type is imported: a chapter's kernel imports (and its stamp hashes,
:mod:`rmbook.book.imported`) its own type alone.
"""
from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

from rmbook.locate import FOLDER, PACKAGE
from rmbook.results import ChapterResults

__all__ = ["chapters_with_results", "result_type", "result_types"]


def _listed_chapters(path: Path) -> tuple[str, ...]:
    """The chapter names in the ``CHAPTERS = (...)`` of the ChapterResults classes defined in ``path``, read from
    its text (nothing is imported)."""
    names = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if (isinstance(item, ast.Assign) and any(getattr(t, "id", "") == "CHAPTERS" for t in item.targets)
                        and isinstance(item.value, (ast.Tuple, ast.List))):
                    names += [e.value for e in item.value.elts if isinstance(e, ast.Constant)]
    return tuple(names)


@functools.cache
def _modules() -> dict[str, str]:
    """chapter name -> the module that holds its results type: every chapter folder's ``types.py``, and the claims
    page's ``results.py``."""
    found = {}
    for path in [*sorted(FOLDER.glob("*/types.py")), FOLDER / "claims" / "results.py"]:
        module = f"{PACKAGE}.{path.parent.name}.{path.stem}"
        for name in _listed_chapters(path):
            if name in found:
                raise TypeError(f"chapter {name!r} has two results types: {found[name]} and {module}")
            found[name] = module
    return found


def chapters_with_results() -> list[str]:
    """Every chapter that has a results type, in the order the files list them."""
    return list(_modules())


def result_type(chapter: str) -> type[ChapterResults]:
    """The results type of chapter ``chapter`` (a KeyError names the chapters that have one)."""
    modules = _modules()
    if chapter not in modules:
        raise KeyError(f"no results type for chapter {chapter!r}; chapters with results: {', '.join(modules)}")
    module = importlib.import_module(modules[chapter])
    found = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, ChapterResults)
             and chapter in v.CHAPTERS and v.__module__ == module.__name__]
    if len(found) != 1:
        raise TypeError(f"{module.__name__} must define one ChapterResults type serving {chapter!r}, found "
                        f"{[t.__name__ for t in found]}")
    return found[0]


def result_types(chapters=None) -> dict[str, type[ChapterResults]]:
    """``{chapter: results type}`` for ``chapters`` (default: every chapter with results)."""
    return {c: result_type(c) for c in (chapters or chapters_with_results())}
