"""Chapters check their own parameters (issue #11, defect 10): `papermill -p MDOE compute` used to exit 0."""
from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest
import yaml
from papermill.translators import translate_parameters

from rmlib import book
from rmlib.book import ParameterError, check_parameters

NOTEBOOKS = sorted(p.stem for p in book.NOTEBOOKS.glob("*.ipynb"))


def _cells(name):
    nb = json.loads((book.NOTEBOOKS / f"{name}.ipynb").read_text())
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


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_chapter_checks_its_parameters_right_after_the_parameters_cell(name, monkeypatch):
    params, check = _cells(name)
    assert "check_parameters(" in check
    _run_cells(monkeypatch, name, None)              # the template's defaults pass
    _run_cells(monkeypatch, name, {})
    full_run = book.PARAMS / f"{name}.yaml"
    if full_run.exists():                             # so do the values `make book` uses
        _run_cells(monkeypatch, name, yaml.safe_load(full_run.read_text()) or {})
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


def _history(params: str, *injected: str) -> list[str]:
    return ["", "import os", params, *injected, "check_parameters()"]


PARAMS = 'MODE = "published"  # a comment\nMODELS = ["a", "b"]\nN = 400\nRATE = 0.5\nFLAG = False\nPATH = None\n'


@pytest.mark.parametrize("values, message", [
    ({"N": "400"}, "N='400' should be an integer"),
    ({"N": 2.5}, "N=2.5 should be an integer"),
    ({"RATE": "0.1"}, "RATE='0.1' should be a number"),
    ({"FLAG": 1}, "FLAG=1 should be True or False"),
    ({"MODELS": "a,b"}, "MODELS='a,b' should be a list"),
    ({"MODE": "both"}, "MODE='both': choose one of"),
    ({"MOEDLS": ["x"]}, "MOEDLS is not a parameter of this chapter \\(did you mean MODELS\\?\\)"),
    ({"mode": "compute"}, "mode is not a parameter of this chapter \\(did you mean MODE\\?\\)"),
])
def test_check_parameters_catches(values, message):
    ns = {}
    injected = _injected(values)
    exec(PARAMS, ns)
    exec(injected, ns)
    with pytest.raises(ParameterError, match=message):
        check_parameters(ns, history=_history(PARAMS, injected), MODE=["published", "compute"])


def test_check_parameters_accepts_good_values_none_and_papermills_own_names():
    ns = {}
    injected = _injected({"N": None, "RATE": 3, "MODELS": ["x"], "PATH": "out.json", "pm": {"run_uuid": "1"}})
    exec(PARAMS, ns)
    exec(injected, ns)
    check_parameters(ns, history=_history(PARAMS, injected), MODE=["published", "compute"])


def test_check_parameters_must_follow_the_parameters_cell():
    with pytest.raises(ParameterError, match="right after the chapter's parameters cell"):
        check_parameters({}, history=["", PARAMS, "x = compute()", "check_parameters()"])
    with pytest.raises(ParameterError, match="declares no MOD"):
        check_parameters({"MODE": "published"}, history=_history(PARAMS), MOD=["a"])


def test_a_parameters_cell_that_starts_like_papermills_comment_is_still_the_parameters_cell():
    params = "# Parameters\nMODE = 'published'\n"
    check_parameters({"MODE": "published"}, history=["", params, "check_parameters()"], MODE=["published"])
    injected = _injected({"MODE": "compute"})
    with pytest.raises(ParameterError, match="MODE='compute'"):
        check_parameters({"MODE": "compute"}, history=["", params, injected, "check()"], MODE=["published"])
