"""The tests' chapter store (tests/chapters/conftest.py) is keyed on the library and the book's runner only; an
edit to one chapter's own modules is left to the stamps, so a warm `make test` reruns that chapter, not every one
(#41 item 3: staleness follows what a chapter ran)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from rmbook.book.stamps import SOURCE_ROOT


def _harness_module():
    """tests/chapters/conftest.py as a module of its own (its functions are pure; pytest's copy is not importable)."""
    spec = importlib.util.spec_from_file_location("chapters_store", Path(__file__).with_name("conftest.py"))
    module = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("relative, in_key", [
    ("rmlib/engine/rewards.py", True), ("rmlib/registry.yaml", True), ("rmbook/book/runner.py", True),
    ("rmbook/cli/book.py", True), ("rmbook/chapters/framing/analysis.py", False),
    ("rmbook/chapters/framing/prose.md.j2", False), ("rmbook/analysis/words.py", False),
    ("rmbook/report/charts/__init__.py", False),
])
def test_the_store_key_holds_the_library_and_runner_and_leaves_chapters_to_the_stamps(relative, in_key):
    assert _harness_module().keyed(relative) is in_key


@pytest.mark.parametrize("relative, changes_key", [
    ("rmbook/chapters/framing/analysis.py", False), ("rmlib/engine/rewards.py", True),
])
def test_an_edit_to_a_chapter_keeps_the_store_and_an_edit_to_the_engine_empties_it(relative, changes_key,
                                                                                   monkeypatch):
    harness = _harness_module()
    root = SOURCE_ROOT.parent
    before = harness.store_key(root)
    edited, read = SOURCE_ROOT / relative, Path.read_bytes
    assert edited.is_file()
    monkeypatch.setattr(Path, "read_bytes", lambda p: read(p) + (b"\n# edited" if p == edited else b""))
    assert (harness.store_key(root) != before) is changes_key
