"""Package faces that import their heavy modules only when a name is used (PEP 562).

``rmlib.engine``, ``rmlib.models`` and ``rmlib.train`` sit on torch and transformers. Their ``__init__`` lists
where each public name lives, and :func:`lazy_face` gives the module-level ``__getattr__`` and ``__dir__`` that
import the submodule on first use. So an analysis module can say ``from rmlib import engine`` at the top of the
file, where a reader sees what it uses, and still import without torch: torch loads when ``engine.sweep(...)`` runs.
"""
from __future__ import annotations

import importlib
import importlib.util
from typing import Any, Callable

__all__ = ["lazy_face", "lazy_submodules"]


def lazy_face(package: str, where: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``where`` maps each public name to the submodule (relative to the
    package) that defines it. A name may not also be a submodule's (importing that submodule would replace the
    name with the module): such a name is refused here."""
    clash = [n for n in where if importlib.util.find_spec(f"{package}.{n}") is not None]
    if clash:
        raise ValueError(f"{package}: public names {clash} are also submodules; import them from the submodule")

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{where[name]}"), name)
        setattr(importlib.import_module(package), name, value)  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(where) | set(vars(importlib.import_module(package))))

    return __getattr__, __dir__


def lazy_submodules(package: str, names: list[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for a package whose public names are its submodules (``rmbook.analysis``): a
    submodule is imported when first named, so importing the package imports none of them, and a chapter's kernel
    imports (and its stamp hashes) only the ones it uses."""

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return importlib.import_module(f"{package}.{name}")  # the import binds it on the package too

    def __dir__() -> list[str]:
        return sorted(set(names) | set(vars(importlib.import_module(package))))

    return __getattr__, __dir__
