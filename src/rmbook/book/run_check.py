"""What a run of a chapter would refuse, checked before anything runs: what `rmlib book run --estimate` checks (#62).

A run refuses bad parameters in two places: the runner before it starts (an unreadable parameter file, a name the
parameters cell does not declare: :meth:`rmbook.book.chapters.Chapter.check`) and the chapter's own check cell once
its kernel runs (:func:`rmbook.book.parameter_check.check_parameters`: choices, types, ``TRUST_REMOTE_CODE``, a
compute-only parameter in published mode). An estimate runs no kernel, so :func:`check_run` reads what the check cell
would: the declared defaults from the parameters cell, and the choices from the call in the cell after it (a literal
list, or a name that the cell imports from a module), then asks :func:`rmbook.book.parameter_check.value_problems`.
"""
from __future__ import annotations

import ast
import importlib

from rmbook.book.chapters import BookError, Chapter, merge_sources
from rmbook.book.parameter_check import _assignments, value_problems

__all__ = ["check_run", "check_cell_choices"]


def check_run(ch: Chapter, *, tiny: bool = False, params_file=None, overrides: dict | None = None, **_) -> None:
    """Raise :class:`BookError` (naming the chapter) for what a run of ``ch`` with these arguments would refuse,
    before it ran a cell; the other keyword arguments of :func:`rmbook.book.runner.run_chapter` are ignored."""
    sources = ch.sources(tiny=tiny, params_file=params_file, overrides=overrides)  # an unreadable file
    ch.check(sources)  # an undeclared name, as the runner refuses it
    cells = [c for c in ch.cells()["cells"] if c.get("cell_type") == "code"]
    at = next((i for i, c in enumerate(cells) if "parameters" in c.get("metadata", {}).get("tags", [])), None)
    declared = _assignments(_source(cells[at])) if at is not None else None
    if declared is None:
        return  # papermill and the check cell say what is wrong with such a template
    choices = check_cell_choices(_source(cells[at + 1])) if at + 1 < len(cells) else {}
    problems = value_problems(declared, {**declared, **merge_sources(sources)},
                              {k: v for k, v in choices.items() if k in declared})
    if problems:
        raise BookError(f"{ch.name}: " + "; ".join(problems))


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def check_cell_choices(source: str) -> dict:
    """The choices a check cell passes to ``check_parameters(NAME=...)``: {NAME: allowed}, each a literal list or a
    name the cell imports (``from rmbook.chapters.framing.sources import MODES``); a choice given any other way is
    left out (the kernel's check still sees it)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    imported = {a.asname or a.name: (n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                and n.module and not n.level for a in n.names}
    out = {}
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "check_parameters"):
            continue
        for kw in call.keywords:
            if isinstance(kw.value, ast.Name) and kw.value.id in imported:
                module, name = imported[kw.value.id]
                out[kw.arg] = list(getattr(importlib.import_module(module), name))
            elif kw.arg is not None:
                try:
                    out[kw.arg] = list(ast.literal_eval(kw.value))
                except (ValueError, TypeError, SyntaxError):
                    pass
    return out
