"""tools/params_table.py: each chapter's README.md (in its folder) lists every parameter of the chapter, and stays
current."""
from __future__ import annotations

from pathlib import Path
import importlib.util

from rmbook import book

_spec = importlib.util.spec_from_file_location("params_table", Path(__file__).resolve().parents[3] / "tools" / "params_table.py")
pt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pt)


def test_readme_is_current_and_every_parameter_of_every_chapter_has_a_meaning():
    texts = pt.render()
    assert all(p.read_text(encoding="utf-8") == text for p, text in texts.items()), "run: python tools/params_table.py"
    for name in book.chapters():
        section = texts[book.CHAPTERS / name / "README.md"]
        rows = {line.split("|")[1].strip().strip("`"): line for line in section.splitlines()
                if line.startswith("| `")}
        assert set(rows) == set(book.declared_parameters(name)), name
        assert not [k for k, line in rows.items() if line.split("|")[2].strip() == "—"], f"{name}: a parameter without a comment"


def test_a_chapter_of_a_shared_template_shows_its_own_defaults():
    mfd = pt.render()[book.CHAPTERS / "moral_foundations" / "README.md"]
    assert "| `DICTIONARY` |" in mfd and "`'mfd2'`" in mfd
    assert "template `notebooks/value_profiles.ipynb`" in mfd.lower()


def test_a_comment_above_serves_the_names_it_lists():
    above = pt._comments_above("framing")
    assert above["MODELS"] == above["PROMPT_KEYS"] and "None means all 10 paper RMs" in above["MODELS"]
