"""Every chapter that writes results has one results type, and every notebook writes it through its builder (no
notebook builds a results dict)."""
from __future__ import annotations

import ast
import json

import pytest

from rmbook import book
from rmbook.analysis.results import CHAPTER_MODULES, result_type, result_types
from rmlib.storage import ChapterResults


def test_every_chapter_that_declares_results_has_a_type():
    writers = {n for n in book.chapters() if book.chapter(n).declares_results}
    assert writers == set(CHAPTER_MODULES)
    types = result_types()
    assert all(issubclass(t, ChapterResults) and name in t.CHAPTERS for name, t in types.items())
    assert types["big_two"] is types["moral_foundations"]  # one template, one type
    with pytest.raises(KeyError, match="no results type for chapter 'about'"):
        result_type("about")


def _code(template) -> list[ast.AST]:
    nb = json.loads(template.read_text())
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    return [ast.parse("\n".join(line for line in c.splitlines() if not line.startswith(("%", "!")))) for c in cells]


@pytest.mark.parametrize("template", sorted({book.chapter(n).template for n in CHAPTER_MODULES}), ids=lambda p: p.stem)
def test_no_notebook_builds_a_results_dict(template):
    writes, dicts = [], []
    for tree in _code(template):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "write_results":
                writes.append(node)
            # a dict display bound to a results-like name, or items added to one, is the old way
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    name = getattr(t, "id", None) or getattr(getattr(t, "value", None), "id", None)
                    if name in ("results", "out") and (isinstance(node.value, ast.Dict) or isinstance(t, ast.Subscript)):
                        dicts.append(ast.unparse(t))
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "update"
                    and getattr(node.func.value, "id", None) in ("results", "out")):
                dicts.append(ast.unparse(node))
    assert len(writes) == 1, f"{template.name}: one write_results call, found {len(writes)}"
    first = writes[0].args[0]
    assert isinstance(first, ast.Call) and getattr(first.func, "attr", None) == "chapter_results", \
        f"{template.name} writes {ast.unparse(first)}, not a results type built by its chapter_results"
    assert dicts == [], f"{template.name} builds a results dict: {dicts}"


@pytest.mark.parametrize("name", sorted(n for n in CHAPTER_MODULES if "mode" in result_type(n).model_fields))
def test_a_chapters_modes_are_named_once(name):
    """MODE's choices come from the chapter's analysis module: the notebook checks MODE against that constant, and
    the results type accepts exactly those modes."""
    import importlib
    import typing

    ch = book.chapter(name)
    cell = next("".join(c["source"]) for c in ch.notebook["cells"] if "check_parameters(" in "".join(c["source"]))
    assert "MODE=MODES" in cell and '"published"' not in cell, cell
    module = next(line.split()[1] for line in cell.splitlines() if line.endswith("import MODES"))
    modes = importlib.import_module(module).MODES
    assert typing.get_args(result_type(name).model_fields["mode"].annotation) == tuple(modes)
