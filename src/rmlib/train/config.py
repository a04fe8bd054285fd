"""What defines a training run: :class:`TrainConfig`, checked before anything is loaded, and :class:`TrainResult`."""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from rmlib import __version__
from rmlib.data.preferences import SOURCES
from rmlib.models import DTYPE_BY_NAME
from rmlib.registry import ModelError, get_spec
from rmlib.errors import RmlibError

__all__ = ["TrainConfig", "TrainConfigError", "TrainResult", "validate", "SYNTHETIC", "METHODS", "OBJECTIVES", "DTYPES"]

SYNTHETIC = "synthetic_marker"  # an easy preference set with a known rule (rmlib.train.pairs.synthetic_marker_pairs)
METHODS = ("full", "last_n", "lora")
OBJECTIVES = ("bradley_terry", "dpo")  # explicit RM (scalar head) | implicit RM (DPO: beta * log pi_theta / pi_ref)
_DPO_ONLY = ("beta",)  # fields only the DPO objective reads: hashed only for DPO runs, so old run hashes stay valid
DTYPES = {k: DTYPE_BY_NAME[k] for k in ("float32", "bfloat16")}  # what training accepts


class TrainConfigError(RmlibError, ValueError):
    """A training config that cannot work; raised before any model is loaded or trained."""


@dataclass
class TrainConfig:
    """Everything that defines a run. Two runs with equal configs (and data) give the same RM."""
    name: str
    base: str
    sources: list[str] = field(default_factory=lambda: ["hh_rlhf_harmless"])
    n_pairs: int | None = 2000          # training pairs (a seeded, nested subsample: 500 of them are in 1000)
    n_test: int = 200                   # held-out pairs (prompts disjoint from training)
    test_fraction: float = 0.2
    seed: int = 0
    steps: int | None = None            # optimizer steps; None = one pass over the training pairs
    batch_size: int = 8
    grad_accum: int = 1
    lr: float = 2e-5
    warmup_ratio: float = 0.0
    max_len: int = 64
    method: str = "last_n"              # full | last_n | lora
    n_layers: int = 4                   # for last_n
    lora_r: int = 16                    # for lora
    save_every: int = 50
    dtype: str = "bfloat16"             # training precision: bfloat16 (autocast, fp32 master weights) or float32
    save_dtype: str = "bfloat16"        # dtype of the exported RMs
    objective: str = "bradley_terry"    # bradley_terry: scalar head (EX-RM) | dpo: TRL's DPO, an implicit RM (IM-RM)
    beta: float = 0.1                   # DPO's beta: the IM-RM's reward is beta * (log pi_theta - log pi_ref)

    def run_hash(self, data_hash: str) -> str:
        """Hash of what defines the run. A Bradley-Terry config hashes exactly as before the DPO objective existed
        (objective and the DPO-only fields are left out), so existing trained RMs keep their hash and are reused."""
        fields = asdict(self)
        if self.objective == "bradley_terry":
            for key in ("objective", *_DPO_ONLY):
                fields.pop(key)
        blob = json.dumps({**fields, "data_hash": data_hash, "rmlib": __version__}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass
class TrainResult:
    name: str
    run_dir: Path
    steps: int
    checkpoints: list[int]
    log: pd.DataFrame           # one row per logged step: step, loss, accuracy, margin, learning_rate, ...
    data_order: pd.DataFrame    # step, position, pair_id: the pairs each optimizer step used
    resumed_from: int | None
    run: dict                   # the rmlib_run.yaml contents

    @property
    def model_id(self) -> str:
        return f"local:{self.name}"

    def step_id(self, step: int) -> str:
        return f"local:{self.name}@step{step}"


def validate(cfg: TrainConfig) -> None:
    if not re.fullmatch(r"[A-Za-z0-9][\w.+-]*", cfg.name or ""):
        raise TrainConfigError(f"run name {cfg.name!r}: use letters, digits, '.', '_', '-', '+' (it becomes "
                               "a folder and the id local:<name>)")
    try:
        spec = get_spec(cfg.base)
    except ModelError as e:
        raise TrainConfigError(f"unknown base model {cfg.base!r}: {e}") from None
    if spec.source == "local":
        raise TrainConfigError(f"base {cfg.base!r} is an rmlib-trained RM; train from its base_model instead")
    unknown = [s for s in cfg.sources if s not in (*SOURCES, SYNTHETIC)]
    if unknown or not cfg.sources:
        raise TrainConfigError(f"unknown data source(s) {unknown or cfg.sources}; choose from "
                               f"{[*SOURCES, SYNTHETIC]}")
    if cfg.objective not in OBJECTIVES:
        raise TrainConfigError(f"objective must be one of {OBJECTIVES}, not {cfg.objective!r}")
    if cfg.objective == "dpo" and not (isinstance(cfg.beta, (int, float)) and not isinstance(cfg.beta, bool)
                                       and 0 < cfg.beta < float("inf")):
        raise TrainConfigError(f"beta must be a positive number for objective='dpo' (0.1 is usual), not {cfg.beta!r}")
    if cfg.method not in METHODS:
        raise TrainConfigError(f"method must be one of {METHODS}, not {cfg.method!r}")
    for key in ("dtype", "save_dtype"):
        if getattr(cfg, key) not in DTYPES:
            raise TrainConfigError(f"{key} must be one of {list(DTYPES)}, not {getattr(cfg, key)!r}")
    for key in ("batch_size", "grad_accum", "save_every", "n_test", "max_len"):
        if not isinstance(getattr(cfg, key), int) or getattr(cfg, key) < 1:
            raise TrainConfigError(f"{key} must be a positive integer, not {getattr(cfg, key)!r}")
    if cfg.steps is not None and cfg.steps < 1:
        raise TrainConfigError(f"steps must be >= 1 or None (one pass), not {cfg.steps}")
    if cfg.n_pairs is not None and cfg.n_pairs < 1:
        raise TrainConfigError(f"n_pairs must be >= 1 or None (all), not {cfg.n_pairs}")
    if not 0 <= cfg.warmup_ratio < 1:
        raise TrainConfigError(f"warmup_ratio must be in [0, 1), not {cfg.warmup_ratio}")
    if not cfg.lr > 0:
        raise TrainConfigError(f"lr must be positive, not {cfg.lr}")

