"""Which name a training run is stored under, so that a rerun with one parameter changed trains rather than stops.

A chapter names its runs by what tells them apart in the chapter's design (base, data, seed, size, steps, tuning:
:func:`rmbook.chapters.finetuning.analysis.run_name`), and other chapters refer to those names (``local:<name>``). The
name leaves out the learning rate, the length, the precision and the layer count, so a reader who reruns a chapter with
another learning rate meets the earlier run under the same name, and :func:`rmlib.train.train` refuses it ("holds a
different run"): nothing in the chapter lets a reader choose a name. :func:`own_name` gives such a run the name
followed by the first 8 digits of its run hash; the same config still finds its finished run and reuses it.
"""
from __future__ import annotations

from dataclasses import replace

import yaml

from rmlib.trained import local_rm_dir
from rmlib.train.config import TrainConfig, validate
from rmlib.train.pairs import data_hash, select_pairs

__all__ = ["same_finished_run", "own_name", "hashed_name", "train_data_hash"]


def train_data_hash(cfg: TrainConfig) -> str:
    """The hash of the pairs ``cfg`` trains on (what :func:`rmlib.train.prepare` records), without tokenizing them:
    the config is checked, then its pairs selected."""
    validate(cfg)
    return data_hash(select_pairs(cfg)[0])


def same_finished_run(cfg: TrainConfig, data_hash: str) -> bool | None:
    """True: a run of exactly this config (on the pairs of ``data_hash``) is stored under ``cfg.name``; False: another
    run holds the name; None: nothing there."""
    f = local_rm_dir(cfg.name) / "run.yaml"
    if not f.exists():
        return None
    old = yaml.safe_load(f.read_text()) or {}
    return bool(old.get("run_hash") == cfg.run_hash(data_hash))


def hashed_name(cfg: TrainConfig, data_hash: str) -> str:
    """``cfg.name`` followed by the first 8 digits of its run hash: the name no other config can take."""
    return f"{cfg.name}-{cfg.run_hash(data_hash)[:8]}"


def own_name(cfg: TrainConfig, data_hash: str) -> tuple[TrainConfig, bool | None]:
    """``cfg`` under its name if that is free or holds this very run; otherwise under :func:`hashed_name`. Returns
    (the config, what :func:`same_finished_run` found under its final name)."""
    found = same_finished_run(cfg, data_hash)
    if found is False:
        cfg = replace(cfg, name=hashed_name(cfg, data_hash))
        found = same_finished_run(cfg, data_hash)
    return cfg, found
