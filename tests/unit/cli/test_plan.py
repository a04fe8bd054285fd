"""`rmlib plan` on the paper's plan: all 540 jobs resolve, with each model's loading options, and `--estimate`
prices them, without loading a model or opening a connection."""
from __future__ import annotations

import socket
from dataclasses import replace
from pathlib import Path

import pytest

from rmlib.cli import main

PAPER_PLAN = str(Path(__file__).parents[3] / "plans" / "paper_rms.yaml")


@pytest.fixture
def offline_no_models(monkeypatch):
    """Any model load, tokenizer load or network connection fails the test."""
    from rmlib.models import cache, loading

    def refused(*a, **k):
        raise AssertionError("`rmlib plan` loaded a model or opened a connection")
    for name, source in list(loading.SOURCES.items()):
        monkeypatch.setitem(loading.SOURCES, name, replace(source, load=refused, tokenizer=refused))
    for mod, attr in ((loading, "load_model"), (loading, "load_tokenizer"), (cache, "cached_model")):
        monkeypatch.setattr(mod, attr, refused)
    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "create_connection", refused)


def test_plan_lists_the_540_jobs_and_each_models_load(data_dir, tmp_path, monkeypatch, capsys, offline_no_models):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    assert main(["plan", PAPER_PLAN]) == 0
    out = capsys.readouterr().out
    # "done" only by a job's request key (#24 item 4): the 3 RMs the registry pins to a revision have one without
    # loading (162 jobs, to run); the 7 unpinned ones' weights cannot be named without loading them (378, "todo?")
    assert "540 jobs: 0 complete in the cache, 162 to run, 378 not known without loading their models" in out
    assert out.count("\ntodo  ") == 162 and out.count("\ntodo? ") == 378 and out.count("load  ") == 10
    assert "load  LxzGordon/URM-LLaMa-3.1-8B: float16 on GPU\n" in out
    assert ("load  nicolinho/QRM-Gemma-2-27B: bfloat16 on GPU, revision=eef8d852e886240e308a57b61d69f0e58489f0ed"
            in out)
    assert "trust_remote_code" not in out


def test_plan_estimate(data_dir, capsys, offline_no_models):
    assert main(["plan", PAPER_PLAN, "--estimate", "--gpu", "h200", "--mfu", "0.4", "--workers", "8"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ESTIMATE, not a measurement") and "assumed 40% MFU of one H200 SXM" in out
    assert out.count(" shared_prefix ") == 540
    assert "total: 540 jobs" in out and "wall time on 8 workers:" in out
    assert main(["plan", PAPER_PLAN, "--estimate", "--gpu", "a100"]) == 2
    assert "unknown GPU 'a100'" in capsys.readouterr().err
