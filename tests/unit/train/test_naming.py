"""rmlib.train.naming: a run is stored under its name, or under the name plus its run hash when another run holds it."""
from __future__ import annotations

import pytest
import yaml

from rmlib.trained import local_rm_dir
from rmlib.train import TrainConfig, hashed_name, own_name, prepare, same_finished_run, train_data_hash


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    return tmp_path


def _store(name: str, run_hash: str) -> None:
    d = local_rm_dir(name)
    d.mkdir(parents=True)
    (d / "run.yaml").write_text(yaml.safe_dump({"run_hash": run_hash, "complete": True}))


def test_a_free_name_or_the_same_run_keeps_the_name(cache):
    cfg = TrainConfig(name="ft-a", base="tiny-llama", lr=1e-3)
    assert own_name(cfg, "d") == (cfg, None)
    _store("ft-a", cfg.run_hash("d"))
    assert same_finished_run(cfg, "d") is True and own_name(cfg, "d") == (cfg, True)


def test_a_name_that_holds_another_run_gets_the_run_hash(cache):
    first = TrainConfig(name="ft-a", base="tiny-llama", lr=1e-3)
    other = TrainConfig(name="ft-a", base="tiny-llama", lr=2e-3)  # the name leaves the learning rate out
    _store("ft-a", first.run_hash("d"))
    assert same_finished_run(other, "d") is False
    cfg, found = own_name(other, "d")
    assert cfg.name == hashed_name(other, "d") == f"ft-a-{other.run_hash('d')[:8]}" and found is None
    _store(cfg.name, cfg.run_hash("d"))  # what train(cfg) records
    assert own_name(other, "d") == (cfg, True)  # the same config again finds it there
    assert own_name(first, "d") == (first, True)  # and the first run keeps its name


def test_the_data_hash_is_the_one_training_records(cache):
    cfg = TrainConfig(name="x", base="tiny-llama", sources=["synthetic_marker"], n_pairs=32, n_test=8, max_len=96,
                      tuning="full")
    assert train_data_hash(cfg) == prepare(cfg)["run"]["data_hash"]
