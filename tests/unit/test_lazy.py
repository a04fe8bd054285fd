"""rmlib.lazy: the torch packages' faces import a submodule only when one of its names is used."""
from __future__ import annotations

import subprocess
import sys

import pytest


def test_a_name_loads_its_submodule_on_first_use_only():
    code = ("import sys, rmlib.engine as e\n"
            "before = 'rmlib.engine.rewards' in sys.modules\n"
            "f = e.token_rewards\n"
            "print(before, 'rmlib.engine.rewards' in sys.modules, f.__module__, 'token_rewards' in dir(e))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True", "rmlib.engine.rewards", "True"]


def test_unknown_names_are_refused():
    import rmlib.models

    with pytest.raises(AttributeError, match="load_modle"):
        rmlib.models.load_modle


def test_a_name_that_is_also_its_submodules_name_stays_the_name(tmp_path, monkeypatch):
    """The face the old rmlib.lazy refused (``{"export": "export"}``: importing the submodule would have replaced the
    function on the package with the module); lazy_loader keeps the function bound."""
    pkg = tmp_path / "planted_face"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from rmlib.lazy import lazy_face\n"
                                     "__getattr__, __dir__ = lazy_face(__name__, {'export': 'export'})\n")
    (pkg / "export.py").write_text("def export():\n    return 'exported'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    face = importlib.import_module("planted_face")
    assert face.export() == "exported"
    importlib.import_module("planted_face.export")
    assert callable(face.export) and face.export() == "exported"
