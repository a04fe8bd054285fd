"""rmbook.book.in_brief: the brief a chapter computes last opens its page, under the title and after any content
warning, once, and a brief cell that shows nothing is an error rather than an empty box (#43 item 1)."""
from __future__ import annotations

import json

import nbformat
import pytest

from rmbook.book import chapters, template
from rmbook.book.chapters import BookError
from rmbook.book.in_brief import BRIEF_TAG, LIFTED_TAG, lift_in_brief, split_title

WARNING = "```{admonition} Content warning\n:class: warning\nSlurs below.\n```"


def _notebook(tmp_path, title: str, brief_outputs: list[dict], n_brief_cells: int = 1):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(title), nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_markdown_cell("## Evidence")]
    for _ in range(n_brief_cells):
        cell = nbformat.v4.new_code_cell("display(Markdown(brief))", metadata={"tags": [BRIEF_TAG, "remove-cell"]})
        cell.outputs = [nbformat.from_dict(o) for o in brief_outputs]
        cell.execution_count = 7
        nb.cells.append(cell)
    path = tmp_path / "page.ipynb"
    nbformat.write(nb, str(path))
    return path


def _md(text):
    return {"output_type": "display_data", "metadata": {}, "data": {"text/markdown": text, "text/plain": "<md>"}}


def test_the_brief_goes_under_the_title_and_the_intro_follows_it(tmp_path):
    path = _notebook(tmp_path, "# Framing\n\nWhy framing matters.", [_md("**partly**. Half holds.")])
    assert lift_in_brief(path)
    cells = nbformat.read(str(path), as_version=4).cells
    assert [c.source for c in cells[:3]] == [
        "# Framing", "```{admonition} In brief\n:class: tip\n**partly**. Half holds.\n```", "Why framing matters."]
    assert cells[1].metadata["tags"] == [LIFTED_TAG]
    assert lift_in_brief(path)  # again: still one box, the intro still once
    again = nbformat.read(str(path), as_version=4).cells
    assert [c.source for c in again] == [c.source for c in cells]


def test_a_content_warning_stays_before_the_brief(tmp_path):
    path = _notebook(tmp_path, f"# Identity terms\n\n{WARNING}\n\nThe design.", [_md("Found.")])
    lift_in_brief(path)
    cells = nbformat.read(str(path), as_version=4).cells
    assert cells[0].source == f"# Identity terms\n\n{WARNING}"
    assert cells[1].source.startswith("```{admonition} In brief") and cells[2].source == "The design."
    assert split_title("# T\n\n" + WARNING) == ("# T\n\n" + WARNING, "")


def test_a_brief_cell_that_showed_nothing_or_twice_is_an_error(tmp_path):
    with pytest.raises(BookError, match="displayed no markdown"):
        lift_in_brief(_notebook(tmp_path, "# T", [{"output_type": "stream", "name": "stdout", "text": "hi"}]))
    with pytest.raises(BookError, match="2 cells are tagged"):
        lift_in_brief(_notebook(tmp_path, "# T", [_md("x")], n_brief_cells=2))
    with pytest.raises(BookError, match="starts with its '# ' title"):
        lift_in_brief(_notebook(tmp_path, "Intro without a title", [_md("x")]))
    assert not lift_in_brief(_notebook(tmp_path, "# T", [_md("x")], n_brief_cells=0))
    never_ran = _notebook(tmp_path, "# T", [])
    nb = nbformat.read(str(never_ran), as_version=4)
    nb.cells[-1].execution_count = None
    nbformat.write(nb, str(never_ran))
    assert not lift_in_brief(never_ran)  # a notebook copied, not executed (a fake run) is left as it is


@pytest.mark.parametrize("name", chapters())
def test_every_chapter_template_computes_one_brief_that_the_page_hides_where_it_ran(name):
    cells = json.loads(template(name).read_text())["cells"]
    briefs = [c for c in cells if BRIEF_TAG in c["metadata"].get("tags", [])]
    assert len(briefs) == 1, f"{name}: {len(briefs)} cells tagged {BRIEF_TAG!r}"
    assert briefs[0]["cell_type"] == "code" and "remove-cell" in briefs[0]["metadata"]["tags"]
    last_code = max(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    assert cells[last_code] is briefs[0], f"{name}: the brief must run after every number it states"
