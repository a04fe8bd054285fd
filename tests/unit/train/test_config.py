"""rmlib.train.config: bad configs fail before any model is loaded."""
from __future__ import annotations

import pytest

from rmlib.trained import local_rm_dir
from rmlib.train import TrainConfig, TrainConfigError, synthetic_marker_pairs, train


def cfg(name, base="tiny-llama", **kw):
    base_kw = dict(sources=["synthetic_marker"], n_pairs=48, n_test=24, steps=16, batch_size=8, lr=2e-3,
                   max_len=96, tuning="full", save_every=8, dtype="float32", save_dtype="float32")
    return TrainConfig(name=name, base=base, **{**base_kw, **kw})


@pytest.mark.parametrize("kwargs, match", [
    (dict(base="no-such-model"), "unknown base model"),
    (dict(sources=["hh_rlhf_harmles"]), "unknown data source"),
    # #39 item 8: a string was iterated, and its characters listed as unknown sources
    (dict(sources="synthetic_marker"), r"sources must be a list of data sources, not the str 'synthetic_marker' "
                                       r"\(write sources=\['synthetic_marker'\]\)"),
    (dict(max_len=10), "shorter than the chat template"),
    (dict(tuning="qlora"), "tuning must be one of"),
    (dict(n_pairs=10_000), "only .* training pairs are available"),
    (dict(objective="ipo"), "objective must be one of"),
    (dict(objective="dpo", beta=0.0), "beta must be a positive number"),
    (dict(objective="dpo", beta=-0.1), "beta must be a positive number"),
    (dict(objective="dpo", beta="0.1"), "beta must be a positive number"),
])
def test_bad_config_fails_before_training(kwargs, match):
    c = cfg("bad", **kwargs)
    with pytest.raises(TrainConfigError, match=match):
        train(c, progress=False)
    assert not local_rm_dir("bad").exists()


def test_empty_dataset_after_filtering_fails_before_training():
    pairs = synthetic_marker_pairs(20)
    pairs["prompt"] = pairs["prompt"] + " <|im_end|>"  # every prompt smuggles a chat control token
    with pytest.raises(TrainConfigError, match="no usable preference pairs"):
        train(cfg("bad-empty"), pairs=pairs, progress=False)
    assert not local_rm_dir("bad-empty").exists()


def test_bradley_terry_run_hash_is_unchanged_by_the_dpo_fields():
    """Adding the DPO objective must not change the hash of any existing (Bradley-Terry) config: trained RMs in
    users' caches would otherwise be refused as 'a different run'. The expected value is the formula from before
    the objective existed: every other field (``tuning`` under its old name, ``method``), the data hash and the rmlib
    version."""
    import hashlib
    import json
    from dataclasses import asdict

    from rmlib import __version__

    c = cfg("hash", beta=0.7)  # beta is irrelevant to Bradley-Terry and must not enter its hash
    # frozen_states (#61) says how the frozen layers are computed, not what the run is: never in the hash either
    legacy = {("method" if k == "tuning" else k): v for k, v in asdict(c).items()
              if k not in ("objective", "beta", "frozen_states")}
    expected = hashlib.sha256(json.dumps({**legacy, "data_hash": "d", "rmlib": __version__},
                                         sort_keys=True).encode()).hexdigest()[:16]
    assert c.run_hash("d") == cfg("hash").run_hash("d") == cfg("hash", frozen_states=False).run_hash("d") == expected
    dpo = cfg("hash", objective="dpo")
    assert dpo.run_hash("d") != expected  # a DPO run is another run
    assert dpo.run_hash("d") != cfg("hash", objective="dpo", beta=0.2).run_hash("d")  # and beta is part of it


# ---------------------------------------------------------------- issue #24 item 5: the gaps in validation

@pytest.mark.parametrize("kwargs, match", [
    (dict(lr=float("inf")), "lr must be a finite positive number"),
    (dict(lr=float("nan")), "lr must be a finite positive number"),
    (dict(lr=True), "lr must be a finite positive number"),
    (dict(batch_size=True), "batch_size must be a positive integer, not True"),
    (dict(steps=2.5), "steps must be an integer >= 1"),
    (dict(steps=True), "steps must be an integer >= 1"),
    (dict(n_pairs=2.5), "n_pairs must be an integer >= 1"),
    (dict(seed=-1), r"seed must be an integer in \[0, 2\*\*32\)"),
    (dict(seed=1.5), r"seed must be an integer in \[0, 2\*\*32\)"),
    (dict(seed=2 ** 32), r"seed must be an integer in \[0, 2\*\*32\)"),
    (dict(test_fraction=1.5), r"test_fraction must be a number in \(0, 1\)"),
    (dict(warmup_ratio="0.1"), r"warmup_ratio must be a number in \[0, 1\)"),
    (dict(tuning="last_n", n_layers=0), "n_layers must be a positive integer"),
    (dict(tuning="last_n", n_layers=2.0), "n_layers must be a positive integer"),
    (dict(tuning="last_n", n_layers=3), "n_layers=3 but the base tiny-llama has 2 decoder layers"),
    (dict(tuning="lora", lora_r=0), "lora_r must be a positive integer"),
    (dict(tuning="lora", lora_r="16"), "lora_r must be a positive integer"),
    (dict(n_pairs=10 ** 9), "synthetic_marker source makes at most 100,000 pairs"),
    (dict(n_test=10 ** 8), "synthetic_marker source makes at most 100,000 pairs"),
], ids=["lr-inf", "lr-nan", "lr-bool", "batch_size-bool", "steps-float", "steps-bool", "n_pairs-float",
        "seed-negative", "seed-float", "seed-2**32", "test_fraction", "warmup_ratio-str", "n_layers-0",
        "n_layers-float", "n_layers-over-the-base", "lora_r-0", "lora_r-str", "n_pairs-1e9-synthetic",
        "n_test-1e8-synthetic"])
def test_bad_values_fail_in_the_config_before_any_model_loads(kwargs, match, monkeypatch):
    import rmlib.train.trainer as trainer

    def no_load(*a, **kw):
        raise AssertionError("a model was loaded before the config was checked")
    monkeypatch.setattr(trainer, "load_model", no_load)
    c = cfg("bad", **kwargs)
    with pytest.raises(TrainConfigError, match=match):
        train(c, progress=False)
    assert not local_rm_dir("bad").exists()


def test_the_synthetic_source_refuses_more_pairs_than_it_makes_at_once():
    import time

    start = time.monotonic()
    with pytest.raises(TrainConfigError, match="makes 1 to 100,000 pairs, not 1,000,000,000"):
        synthetic_marker_pairs(10 ** 9)
    assert time.monotonic() - start < 1  # refused up front, not after building rows


# The run hashes that rmlib computed for these configs before `method` was renamed `tuning` (#26 item 5), with
# data hash "d" * 16: a trained RM stays reusable only while its config hashes exactly as it did when it was trained.
HASHES_BEFORE_THE_RENAME = {"full": "0be8492aaffa5ae1", "last_n": "e5b8ea212d15763f", "lora": "de697a93430b2b34"}


@pytest.mark.parametrize("tuning", sorted(HASHES_BEFORE_THE_RENAME))
def test_the_rename_of_method_to_tuning_keeps_every_run_hash(tuning):
    c = TrainConfig(name="x", base="tiny-llama", tuning=tuning)
    assert c.run_hash("d" * 16) == HASHES_BEFORE_THE_RENAME[tuning]
    dpo = TrainConfig(name="x", base="tiny-llama", tuning="lora", objective="dpo")
    assert dpo.run_hash("d" * 16) == "48e14205ada57458"


def test_a_config_stored_before_the_rename_is_read_with_its_tuning():
    """A run.yaml written before #26 stores ``method``; reading it must give the same config and hash (load_run)."""
    from dataclasses import asdict

    from rmlib.train import stored_tuning
    new = TrainConfig(name="x", base="tiny-llama", tuning="lora", n_layers=2)
    old_record = {("method" if k == "tuning" else k): v for k, v in asdict(new).items()}
    assert "method" in old_record and "tuning" not in old_record
    assert TrainConfig.from_stored(old_record) == new == TrainConfig.from_stored(asdict(new))
    assert TrainConfig.from_stored(old_record).run_hash("h") == new.run_hash("h")
    assert stored_tuning({"method": "last_n"}) == "last_n" == stored_tuning({"tuning": "last_n"})
    assert stored_tuning({}) is None


def test_a_run_trained_before_the_rename_loads(tmp_path, monkeypatch):
    """load_run on a run folder whose run.yaml has the old key."""
    import yaml

    from rmlib.train import load_run
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    run_dir = local_rm_dir("old-run")
    run_dir.mkdir(parents=True)
    config = {"name": "old-run", "base": "tiny-llama", "method": "last_n"}
    (run_dir / "run.yaml").write_text(yaml.safe_dump({"steps": 2, "method": "last_n", "config": config}))
    (run_dir / "train_log.csv").write_text("step,loss\n1,0.7\n")
    (run_dir / "data_order.csv").write_text("step,position,pair_id\n1,0,0\n")
    r = load_run("old-run")
    assert r.steps == 2 and r.run["method"] == "last_n"


@pytest.mark.parametrize("bf16_units, expected", [(True, "bfloat16"), (False, "float32")])
def test_auto_trains_in_bfloat16_only_where_the_cpu_computes_it_and_the_run_says_so(bf16_units, expected, monkeypatch):
    """#43 item 8: bfloat16 training on a CPU without bf16 units took 35-37 s per step (12x slower). ``auto`` is
    resolved when the config is made, so the run's hash and name hold the precision it trained in."""
    import torch

    from rmlib.models import devices

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(devices, "cpu_has_bf16_units", lambda: bf16_units)
    auto = cfg("auto-run", dtype="auto")
    assert auto.dtype == expected
    same = cfg("auto-run", dtype=expected)
    assert auto.run_hash("data") == same.run_hash("data")
    other = cfg("auto-run", dtype="float32" if expected == "bfloat16" else "bfloat16")
    assert auto.run_hash("data") != other.run_hash("data")


def test_a_dtype_that_is_none_of_the_three_is_refused_with_the_choices():
    with pytest.raises(TrainConfigError, match=r"dtype must be one of \['float32', 'bfloat16'\], or 'auto'"):
        train(cfg("bad", dtype="half"), progress=False)


def test_every_declared_field_refuses_a_string_with_the_phrase_its_annotation_gives():
    """#41 item 5: the fields' domains are pydantic annotations; each error names the field and what it accepts
    (the annotation's description), not pydantic's generic wording, and says the value it got."""
    from rmlib.train.config import _phrases

    phrases = _phrases()
    assert {"batch_size", "lr", "seed", "steps", "n_pairs", "tuning", "dtype", "objective"} <= set(phrases)
    for key, phrase in phrases.items():
        with pytest.raises(TrainConfigError) as e:
            train(cfg("bad", **{key: "x"}), progress=False)
        assert str(e.value) == f"{key} must be {phrase}, not 'x'", key


def test_a_numpy_integer_is_an_integer_and_a_whole_float_is_not():
    import numpy as np

    from rmlib.train import validate
    validate(cfg("ok", batch_size=np.int64(8), seed=np.uint32(3)))
    with pytest.raises(TrainConfigError, match=r"batch_size must be a positive integer, not 8\.0"):
        validate(cfg("bad", batch_size=8.0))
