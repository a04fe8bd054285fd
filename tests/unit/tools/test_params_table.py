"""tools/params_table.py: notebooks/params/README.md lists every parameter of every chapter, and stays current."""
from __future__ import annotations

from pathlib import Path
import importlib.util

from rmbook import book

_spec = importlib.util.spec_from_file_location("params_table", Path(__file__).resolve().parents[3] / "tools" / "params_table.py")
pt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pt)


def test_readme_is_current_and_every_parameter_of_every_chapter_has_a_meaning():
    text = pt.render()
    assert pt.README.read_text(encoding="utf-8") == text, "run: python tools/params_table.py"
    for name in book.chapters():
        section = text.split(f"## {name}\n", 1)[1].split("\n## ", 1)[0]
        rows = {line.split("|")[1].strip().strip("`"): line for line in section.splitlines()
                if line.startswith("| `")}
        assert set(rows) == set(book.declared_parameters(name)), name
        assert not [k for k, line in rows.items() if line.split("|")[2].strip() == "—"], f"{name}: a parameter without a comment"


def test_a_chapter_of_a_shared_template_shows_its_own_defaults():
    text = pt.render()
    mfd = text.split("## moral_foundations\n", 1)[1].split("\n## ", 1)[0]
    assert "| `DICTIONARY` |" in mfd and "`'mfd2'`" in mfd
    assert "template `notebooks/value_profiles.ipynb`" in mfd.lower()


def test_a_comment_above_serves_the_names_it_lists():
    above = pt._comments_above("framing")
    assert above["MODELS"] == above["PROMPT_KEYS"] and "None means all 10 paper RMs" in above["MODELS"]
