"""Every chapter that writes results has one results type, and every notebook writes it through its builder (no
notebook builds a results dict)."""
from __future__ import annotations

import ast
import json

import pytest

from rmbook import book
from rmbook.analysis.results import chapters_with_results, result_type, result_types
from rmbook.analysis.results import by_chapter
from rmbook.results import ChapterResults


def test_every_chapter_that_declares_results_has_a_type():
    writers = {n for n in book.chapters() if book.chapter(n).declares_results}
    assert writers == set(chapters_with_results())
    types = result_types()
    assert all(issubclass(t, ChapterResults) and name in t.CHAPTERS for name, t in types.items())
    assert types["big_two"] is types["moral_foundations"]  # one template, one type
    with pytest.raises(KeyError, match="no results type for chapter 'about'"):
        result_type("about")


def test_a_new_chapters_type_is_found_by_its_name_with_no_table_to_edit(tmp_path, monkeypatch):
    """#41 item 2: adding a chapter edited a table (CHAPTER_MODULES) beside the chapter's own files. Now a chapter
    folder's ``types.py`` is found by the chapters its type lists; two types for one chapter are refused."""
    import shutil

    here = tmp_path / "chapters"
    shutil.copytree(by_chapter.FOLDER, here, ignore=shutil.ignore_patterns("__pycache__", "*.yaml", "*.j2"))
    (here / "new_chapter").mkdir()
    (here / "new_chapter" / "types.py").write_text(
        "from rmlib.storage import ChapterResults\n\n\nclass NewChapterResults(ChapterResults):\n"
        "    CHAPTERS = (\"new_chapter\",)\n")
    monkeypatch.setattr(by_chapter, "FOLDER", here)
    by_chapter._modules.cache_clear()
    try:
        writers = {n for n in book.chapters() if book.chapter(n).declares_results}
        assert set(chapters_with_results()) == writers | {"new_chapter"}
        (here / "twice").mkdir()
        (here / "twice" / "types.py").write_text(
            "class Twice(ChapterResults):\n    CHAPTERS = (\"framing\",)\n")
        by_chapter._modules.cache_clear()
        with pytest.raises(TypeError, match="chapter 'framing' has two results types"):
            chapters_with_results()
    finally:
        by_chapter._modules.cache_clear()


def test_finding_a_chapters_type_imports_no_other_chapters_type():
    """A chapter's kernel imports (and its stamp hashes) its own type alone, and the shared sections it holds (the
    compute-mode section that keeps the paper RMs on the page), which are no chapter's."""
    import subprocess
    import sys

    code = ("import sys\nfrom rmbook.analysis.results import result_type\nresult_type('framing')\n"
            "print(sorted(m for m in sys.modules if m.startswith('rmbook.analysis.results.types.')"
            " or m.startswith('rmbook.chapters.') and m.endswith('.types')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "['rmbook.analysis.results.types.beside', 'rmbook.chapters.framing.types']"


def _code(template) -> list[ast.AST]:
    nb = json.loads(template.read_text())
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    return [ast.parse("\n".join(line for line in c.splitlines() if not line.startswith(("%", "!")))) for c in cells]


@pytest.mark.parametrize("template", sorted({book.chapter(n).template for n in chapters_with_results()}), ids=lambda p: p.stem)
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


@pytest.mark.parametrize("name", sorted(n for n in chapters_with_results() if "mode" in result_type(n).model_fields))
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
