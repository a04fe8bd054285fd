"""The parameters of a run appear once on its page: raw parameter cells hidden, one table of the values used."""
from __future__ import annotations

import nbformat

from rmbook import book


def _executed(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell('MODE = "published"  # which data\nTOP_K = 5\nRESULTS_DIR = None',
                                          metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell('TOP_K = 20\nRESULTS_DIR = "/tmp/r"', metadata={"tags": ["injected-parameters"]}),
                nbformat.v4.new_code_cell("check_parameters()", metadata={"tags": ["remove-cell"]}),
                nbformat.v4.new_code_cell("print(TOP_K)")]
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, str(path))
    return path


def test_markdown_lists_every_parameter_with_the_value_used_and_marks_those_set():
    text = book.parameters_markdown({"MODE": '"published"', "TOP_K": "5", "RESULTS_DIR": "None"}, {"TOP_K": 20},
                                    {"MODE": "which data"})
    assert "| `MODE` | `'published'` | which data |" in text and "| `TOP_K` * | `20` |  |" in text
    assert "RESULTS_DIR" not in text  # where results go is not an input
    assert book.parameters_markdown({"RESULTS_DIR": "None"}, {}) == ""
    # #28 item 6: lists of model ids were cut to 'loca...'; a whole list shows
    models = ["local:ft-smollm2-135m-instruct-hh_rlhf_harmless-n512-s0-64x8-last_n", "gemma3-270m"]
    assert repr(models) in book.parameters_markdown({"MODELS": "None"}, {"MODELS": models})
    assert "..." in book.parameters_markdown({"MODELS": "None"}, {"MODELS": ["m" * 300, "n" * 300]})


def test_the_table_is_collapsed_and_says_what_each_parameter_is():
    # #28 item 6: a 6-23-row table in code names, with None unexplained, came before any content
    from rmbook.book.parameters_table import _meanings

    source = ('MODELS = None     # None: all 10 paper RMs\nTOP_K = 5\nMODE = "published"  # published: the released\n'
              '                   # scores; compute: fresh ones\nX = [\n    1,\n]  # a list\n')
    assert _meanings(source) == {"MODELS": "None: all 10 paper RMs", "TOP_K": "",
                                 "MODE": "published: the released scores; compute: fresh ones", "X": "a list"}
    text = book.parameters_markdown({"MODELS": "None"}, {}, _meanings(source))
    assert text.startswith("```{admonition} Parameters of this run (1;") and ":class: dropdown" in text
    assert "| `MODELS` | `None` | None: all 10 paper RMs |" in text and text.endswith("```")


def test_raw_parameter_cells_are_hidden_and_one_table_follows_them(tmp_path):
    path = _executed(tmp_path)
    book.show_parameters_once(path, {"TOP_K": 20, "RESULTS_DIR": "/tmp/r"})
    book.show_parameters_once(path, {"TOP_K": 20, "RESULTS_DIR": "/tmp/r"})  # idempotent
    cells = nbformat.read(str(path), as_version=4).cells
    assert all("remove-cell" in cells[i].metadata["tags"] for i in (0, 1, 3))  # parameters, injected, check
    tables = [c for c in cells if c.cell_type == "markdown"]
    assert len(tables) == 1 and cells.index(tables[0]) == 2  # right after the injected cell
    assert "| `TOP_K` * | `20` |" in tables[0].source and "| `MODE` | `'published'` |" in tables[0].source
    assert cells[-1].source == "print(TOP_K)" and "remove-cell" not in cells[-1].metadata.get("tags", [])
