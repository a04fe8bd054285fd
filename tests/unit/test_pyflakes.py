"""pyflakes over the library, the book and the tools: no unused import, no undefined or redefined name.

Eleven unused or doubled imports had piled up unseen (a doubled import in the plan runner, the commands, the categories
and blinding's analysis); this keeps the count at zero."""
from __future__ import annotations

from pathlib import Path

from pyflakes import api, reporter

ROOT = Path(__file__).resolve().parents[2]


class _Collect(reporter.Reporter):
    def __init__(self):
        self.found: list[str] = []

    def unexpectedError(self, filename, msg):
        self.found.append(f"{filename}: {msg}")

    def syntaxError(self, filename, msg, lineno, offset, text):
        self.found.append(f"{filename}:{lineno}: {msg}")

    def flake(self, message):
        self.found.append(str(message))


def flakes(paths: list[Path]) -> list[str]:
    collect = _Collect()
    api.checkRecursive([str(p) for p in paths], collect)
    return collect.found


def test_src_and_tools_have_no_unused_or_undefined_name():
    assert flakes([ROOT / "src", ROOT / "tools"]) == []


def test_the_check_sees_an_unused_import(tmp_path):
    (tmp_path / "bad.py").write_text("import os\nprint(undefined_name)\n")
    found = flakes([tmp_path])
    assert len(found) == 2 and "'os' imported but unused" in found[0] and "undefined name" in found[1]
