"""Every chapter checks its own parameters right after its parameters cell, also under plain papermill."""
from __future__ import annotations

import json
import subprocess
import sys
import types

from papermill.translators import translate_parameters
import pytest

from rmbook import book
from rmbook.book import ParameterError


CHAPTERS = book.chapters()


def _cells(name):
    nb = json.loads(book.template(name).read_text())
    i = next(k for k, c in enumerate(nb["cells"]) if "parameters" in c["metadata"].get("tags", []))
    return "".join(nb["cells"][i]["source"]), "".join(nb["cells"][i + 1]["source"])


def _injected(values: dict) -> str:
    return translate_parameters("python3", "python", values, "Parameters")  # exactly what papermill injects


def _run_cells(monkeypatch, name, values: dict | None):
    """Run the parameters cell, papermill's injected cell (if any) and the check cell as a kernel would."""
    params, check = _cells(name)
    ran = ["", params] + ([_injected(values)] if values is not None else []) + [check]
    ns = {}
    for src in ran[1:-1]:
        exec(src, ns)
    shell = types.SimpleNamespace(user_ns=ns, history_manager=types.SimpleNamespace(input_hist_raw=ran))
    monkeypatch.setattr("IPython.get_ipython", lambda: shell)
    exec(check, ns)


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_chapter_checks_its_parameters_right_after_the_parameters_cell(name, monkeypatch):
    params, check = _cells(name)
    assert "check_parameters(" in check
    _run_cells(monkeypatch, name, None)              # the template's defaults pass
    _run_cells(monkeypatch, name, {})
    _run_cells(monkeypatch, name, book.parameters(name, tiny=True))   # so do the tests' values
    _run_cells(monkeypatch, name, book.parameters(name))              # and the values `make book` uses
    with pytest.raises(ParameterError, match="MDOE is not a parameter"):
        _run_cells(monkeypatch, name, {"MDOE": "compute"})
    if "\nMODE = " in params:
        with pytest.raises(ParameterError, match="MODE='comptue': choose one of"):
            _run_cells(monkeypatch, name, {"MODE": "comptue"})
    if "\nMODELS = " in params:
        with pytest.raises(ParameterError, match="MODELS=.* should be a list .* -y"):
            _run_cells(monkeypatch, name, {"MODELS": '["tiny-llama"]'})


def test_papermill_with_a_misspelled_parameter_exits_nonzero(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "papermill", str(book.NOTEBOOKS / "method.ipynb"),
                           str(tmp_path / "out.ipynb"), "-p", "MDOE", "compute", "-k", "python3",
                           "--cwd", str(book.NOTEBOOKS)], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "MDOE is not a parameter of this chapter" in proc.stdout + proc.stderr
