"""tests/cache_guard.py: the tests run on the suite's own rmlib cache, and a session that changes the checkout's
cache fails (#64 item 5)."""
from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from rmlib import config
from tests import cache_guard


def test_the_tests_cache_is_the_suites_own_not_the_checkouts(pytestconfig):
    checkout = (Path(pytestconfig.rootpath) / cache_guard.CHECKOUT_CACHE).resolve()
    assert config.cache_dir() == cache_guard.suite_cache(pytestconfig).resolve()
    assert not config.cache_dir().is_relative_to(checkout)


def _session(root: Path) -> SimpleNamespace:
    plugins = SimpleNamespace(get_plugin=lambda name: None)
    cfg = SimpleNamespace(rootpath=root, stash=pytest.Stash(), pluginmanager=plugins, cache=None)
    return SimpleNamespace(config=cfg, exitstatus=pytest.ExitCode.OK)


def test_a_file_added_grown_or_removed_in_the_checkouts_cache_fails_the_session(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RMLIB_CACHE_DIR", os.environ["RMLIB_CACHE_DIR"])  # start() sets it: restored after
    cache = tmp_path / cache_guard.CHECKOUT_CACHE
    (cache / "sweeps").mkdir(parents=True)
    (cache / "sweeps" / "a.parquet").write_bytes(b"1234")
    (cache / "old.json").write_text("{}")
    session = _session(tmp_path)
    cache_guard.start(session.config)
    assert os.environ["RMLIB_CACHE_DIR"] == str(tmp_path / ".pytest_cache" / "d" / cache_guard.SUITE_CACHE)
    assert cache_guard.finish(session) == [] and session.exitstatus == pytest.ExitCode.OK  # untouched: passes

    (cache / "sweeps" / "a.parquet").write_bytes(b"123456")
    (cache / "gguf").mkdir()
    (cache / "old.json").unlink()
    changed = cache_guard.finish(session)
    assert changed == ["added gguf", "removed old.json", "changed sweeps/a.parquet"]
    assert session.exitstatus == pytest.ExitCode.TESTS_FAILED
    assert "changed the checkout's cache" in capsys.readouterr().out


def test_a_worker_leaves_the_check_to_its_controller(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", os.environ["RMLIB_CACHE_DIR"])
    session = _session(tmp_path)
    cache_guard.start(session.config)
    session.config.workerinput = {}
    (tmp_path / cache_guard.CHECKOUT_CACHE).mkdir(parents=True)
    assert cache_guard.finish(session) == [] and session.exitstatus == pytest.ExitCode.OK


def test_changes_counts_what_it_leaves_out():
    after = {f"f{i}": (1, 1) for i in range(12)}
    lines = cache_guard.changes({}, after, limit=10)
    assert len(lines) == 11 and lines[-1] == "... and 2 more"


def test_a_test_that_leaves_the_cache_variable_changed_fails_and_it_is_put_back(pytestconfig, monkeypatch):
    """The CI failure of 2026-12-07: a test deleted RMLIB_CACHE_DIR after its run, and a later test in the worker
    read the checkout's cache."""
    suite = os.environ["RMLIB_CACHE_DIR"]
    monkeypatch.delenv("RMLIB_CACHE_DIR")
    with pytest.raises(AssertionError, match="left RMLIB_CACHE_DIR at None"):
        cache_guard.kept(pytestconfig)
    assert os.environ["RMLIB_CACHE_DIR"] == suite
    cache_guard.kept(pytestconfig)  # kept: passes
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(pytestconfig.rootpath / cache_guard.CHECKOUT_CACHE))
    with pytest.raises(AssertionError, match="left RMLIB_CACHE_DIR at .*\\.cache/rmlib"):
        cache_guard.kept(pytestconfig)  # the checkout's cache: fails and is put back
    assert os.environ["RMLIB_CACHE_DIR"] == suite


def test_a_modules_own_temporary_cache_is_left_alone(pytestconfig, monkeypatch, tmp_path):
    """train_support.module_cache holds a temporary cache for all of a module's tests (the first CI run of the guard
    failed 11 training tests that way)."""
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "module-cache"))
    cache_guard.kept(pytestconfig)
    assert os.environ["RMLIB_CACHE_DIR"] == str(tmp_path / "module-cache")
