"""rmlib.lazy: the torch packages' faces import a submodule only when one of its names is used."""
from __future__ import annotations

import subprocess
import sys

import pytest

from rmlib.lazy import lazy_face


def test_a_name_loads_its_submodule_on_first_use_only():
    code = ("import sys, rmlib.engine as e\n"
            "before = 'rmlib.engine.rewards' in sys.modules\n"
            "f = e.token_rewards\n"
            "print(before, 'rmlib.engine.rewards' in sys.modules, f.__module__, 'token_rewards' in dir(e))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True", "rmlib.engine.rewards", "True"]


def test_unknown_names_and_names_that_are_also_submodules_are_refused():
    import rmlib.models

    with pytest.raises(AttributeError, match="no attribute 'load_modle'"):
        rmlib.models.load_modle
    with pytest.raises(ValueError, match=r"\['export'\] are also submodules"):
        lazy_face("rmlib.train", {"export": "export"})
