"""The worker options of `rmlib run`: checked, and refused by a serial run, which has no workers to shape (#39 item 7:
they were silently ignored). The runs themselves are tested in tests/integration/test_plan*.py."""
from __future__ import annotations

import pytest

from rmlib.cli import main
from rmlib.engine import SweepError
from rmlib.engine.plan_runner import worker_options


@pytest.mark.parametrize("given, named", [
    (dict(workers=0), "workers"),
    (dict(threads=-1), "threads_per_worker"),
    (dict(gpus=1), "gpus_per_worker"),
    (dict(workers=2, threads=1), "workers, threads_per_worker"),
])
def test_a_serial_run_refuses_worker_options(given, named):
    args = {"workers": None, "gpus": None, "threads": None, **given}
    with pytest.raises(SweepError, match=f"^{named} shape the workers of a Ray run"):
        worker_options(None, **args)


@pytest.mark.parametrize("given, message", [
    (dict(workers=0), "workers must be a whole number >= 1, not 0"),
    (dict(threads=-1), "threads_per_worker must be a whole number >= 1, not -1"),
    (dict(threads=1.5), "threads_per_worker must be a whole number >= 1, not 1.5"),
    (dict(gpus=-1), "gpus_per_worker must be a number >= 0"),
    (dict(gpus=float("inf")), "gpus_per_worker must be a number >= 0"),
])
def test_ray_worker_options_are_checked(given, message):
    args = {"workers": None, "gpus": None, "threads": None, **given}
    with pytest.raises(SweepError, match=message):
        worker_options("auto", **args)


def test_ray_defaults_and_fractions():
    assert worker_options("auto", None, None, None) == (0, 1)
    assert worker_options("auto", 3, 0.5, 2) == (0.5, 2)
    assert worker_options(None, None, None, None) == (0, 1)


def test_the_cli_refuses_them_before_any_job_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    plan = tmp_path / "plan.yaml"
    plan.write_text("models: [tiny-llama]\nprompts: ['What is best?']\ntokens: '0:8'\n")
    assert main(["run", "--workers", "0", str(plan)]) == 2
    assert "workers shape the workers of a Ray run (--ray)" in capsys.readouterr().err
    assert not (tmp_path / "cache").exists()  # nothing ran
