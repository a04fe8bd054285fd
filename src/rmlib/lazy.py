"""Package faces that import their heavy modules only when a name is used (PEP 562), through ``lazy_loader``.

``rmlib.engine``, ``rmlib.models`` and ``rmlib.train`` sit on torch and transformers. Their ``__init__`` lists
where each public name lives, and :func:`lazy_face` gives the module-level ``__getattr__`` and ``__dir__`` that
import the submodule on first use. So an analysis module can say ``from rmlib import engine`` at the top of the
file, where a reader sees what it uses, and still import without torch: torch loads when ``engine.sweep(...)`` runs.

The work is ``lazy_loader.attach`` (scientific Python's SPEC 1; it also keeps a name that is a submodule's name
bound to the name, not the module, and ``EAGER_IMPORT=1`` imports everything at once to find a broken face). These
two functions only turn each face's table (name -> submodule, the way a reader looks a name up) into its form.
Why not its ``.pyi`` stubs (``attach_stub``), which would let static tools see the arrows: a face's table would then
live in a second file that the book's stamps do not hash (they hash the ``.py`` files a kernel imported), that
``tests/unit/test_architecture.py`` does not parse, and that the wheel ships only when package data names it; and
the arrows a stub would show run from a face to its own submodules, inside one layer, where the layer check has
nothing to judge (an importer's arrow to the face itself, ``from rmlib import engine``, is a plain import it sees).
"""
from __future__ import annotations

from typing import Any, Callable

import lazy_loader

__all__ = ["lazy_face", "lazy_submodules"]


def lazy_face(package: str, where: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``where`` maps each public name to the submodule (relative to the
    package) that defines it."""
    by_module: dict[str, list[str]] = {}
    for name, module in where.items():
        by_module.setdefault(module, []).append(name)
    getattr_, dir_, _ = lazy_loader.attach(package, submod_attrs=by_module)
    return getattr_, dir_


def lazy_submodules(package: str, names: list[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for a package whose public names are its submodules (``rmbook.analysis``): a
    submodule is imported when first named, so importing the package imports none of them, and a chapter's kernel
    imports (and its stamp hashes) only the ones it uses."""
    getattr_, dir_, _ = lazy_loader.attach(package, submodules=names)
    return getattr_, dir_
