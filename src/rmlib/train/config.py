"""What defines a training run: :class:`TrainConfig`, checked before anything is loaded, and :class:`TrainResult`.

Each field declares what it accepts in its annotation (pydantic constraints, strict: ``True`` is not a batch size,
``2.0`` not a layer count, ``"0.1"`` not a ratio), and :func:`validate` checks a config against them with pydantic,
then the checks that need more than one field or the registry. A field's ``description`` is the phrase its error
names ("batch_size must be a positive integer, not True"), so the message says what to write, not pydantic's
generic "Input should be a valid integer"."""
from __future__ import annotations

import functools
import hashlib
import json
import numbers
import re
import typing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Literal

import pandas as pd
from pydantic import BeforeValidator, Field, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from rmlib import __version__
from rmlib.data.preferences import SOURCES
from rmlib.errors import RmlibError
from rmlib.models import DTYPE_BY_NAME
from rmlib.models import devices
from rmlib.models.tiny import tiny_config
from rmlib.registry import ModelError, get_spec

__all__ = ["TrainConfig", "TrainConfigError", "TrainResult", "validate", "SYNTHETIC", "SYNTHETIC_MAX_PAIRS", "TUNINGS",
           "OBJECTIVES", "DTYPES", "training_dtype", "stored_tuning"]

SYNTHETIC = "synthetic_marker"  # an easy preference set with a known rule (rmlib.train.pairs.synthetic_marker_pairs)
SYNTHETIC_MAX_PAIRS = 100_000  # the most pairs that source makes (it is built row by row in Python)
TUNINGS = ("full", "last_n", "lora")  # which weights train: all | the head and the last n layers | LoRA adapters
# `tuning` was called `method` until #26 (it collided with a sweep's `method`). Stored runs and run hashes keep the
# old key, so every RM trained before the rename keeps its hash and is reused (see TrainConfig.run_hash, from_stored).
_LEGACY_KEYS = {"tuning": "method"}
OBJECTIVES = ("bradley_terry", "dpo")  # explicit RM (scalar head) | implicit RM (DPO: beta * log pi_theta / pi_ref)
_DPO_ONLY = ("beta",)  # fields only the DPO objective reads: hashed only for DPO runs, so old run hashes stay valid
DTYPES = {k: DTYPE_BY_NAME[k] for k in ("float32", "bfloat16")}  # what training runs in ("auto" picks one of them)


def _plain_int(value):
    """A numpy integer as a Python int (strict mode would refuse it); a bool, float or string stays as it is, to be
    refused."""
    return int(value) if isinstance(value, numbers.Integral) and not isinstance(value, bool) else value


def _accepts(phrase: str, **constraints) -> FieldInfo:
    """A field's constraints and the phrase that names them in an error ("must be <phrase>")."""
    return Field(description=phrase, **constraints)


_Int = Annotated[int, BeforeValidator(_plain_int), Field(strict=True, ge=1)]
PositiveInt = Annotated[int, BeforeValidator(_plain_int), _accepts("a positive integer", strict=True, ge=1)]
Real = Annotated[float, Field(strict=True, allow_inf_nan=False)]


def training_dtype() -> str:
    """What ``dtype="auto"`` trains in here: bfloat16 where the hardware computes it (a CUDA GPU that supports it, or
    a CPU with bf16 units), float32 elsewhere. Why: on a CPU without bf16 units torch emulates bfloat16, and the
    finetuning chapter's steps took 35-37 s each instead of ~3 s (README, "How long it takes")."""
    import torch

    if torch.cuda.is_available():
        return "bfloat16" if torch.cuda.is_bf16_supported() else "float32"
    return "bfloat16" if devices.cpu_has_bf16_units() else "float32"


class TrainConfigError(RmlibError, ValueError):
    """A training config that cannot work; raised before any model is loaded or trained."""


@dataclass
class TrainConfig:
    """Everything that defines a run. Two runs with equal configs (and data) give the same RM."""
    name: str
    base: str
    sources: list[str] = field(default_factory=lambda: ["hh_rlhf_harmless"])
    # training pairs (a seeded, nested subsample: 500 of them are in 1000)
    n_pairs: Annotated[_Int | None, _accepts("an integer >= 1 or None (all)")] = 2000
    n_test: PositiveInt = 200           # held-out pairs (prompts disjoint from training)
    test_fraction: Annotated[Real, _accepts("a number in (0, 1)", gt=0, lt=1)] = 0.2
    seed: Annotated[int, BeforeValidator(_plain_int),
                    _accepts("an integer in [0, 2**32) (numpy's seed range)", strict=True, ge=0, lt=2 ** 32)] = 0
    # optimizer steps; None = one pass over the training pairs
    steps: Annotated[_Int | None, _accepts("an integer >= 1 or None (one pass)")] = None
    batch_size: PositiveInt = 8
    grad_accum: PositiveInt = 1
    lr: Annotated[Real, _accepts("a finite positive number (2e-5 is usual)", gt=0)] = 2e-5
    warmup_ratio: Annotated[Real, _accepts("a number in [0, 1)", ge=0, lt=1)] = 0.0
    max_len: PositiveInt = 64
    # which weights train: full | last_n | lora (TUNINGS)
    tuning: Annotated[Literal[TUNINGS], _accepts(f"one of {TUNINGS}")] = "last_n"
    n_layers: PositiveInt = 4           # for last_n
    lora_r: PositiveInt = 16            # for lora
    save_every: PositiveInt = 50
    # training precision: bfloat16 (autocast, fp32 master weights), float32, or auto (training_dtype: resolved here
    # when the config is made, so the run's hash, name and record hold the precision it really trained in)
    dtype: Annotated[Literal[tuple(DTYPES)], _accepts(
        f"one of {list(DTYPES)}, or 'auto' (bfloat16 where the hardware has bf16 units, else float32)")] = "bfloat16"
    # dtype of the exported RMs
    save_dtype: Annotated[Literal[tuple(DTYPES)], _accepts(f"one of {list(DTYPES)}")] = "bfloat16"
    # bradley_terry: scalar head (EX-RM) | dpo: TRL's DPO, an implicit RM (IM-RM)
    objective: Annotated[Literal[OBJECTIVES], _accepts(f"one of {OBJECTIVES}")] = "bradley_terry"
    beta: float = 0.1                   # DPO's beta: the IM-RM's reward is beta * (log pi_theta - log pi_ref)
    # last_n: compute the frozen layers once per sequence and train the top from their states (rmlib.train.frozen);
    # how the same function is computed, not what the run is: left out of the run's hash
    frozen_states: bool = True

    def __post_init__(self):
        if self.dtype == "auto":
            self.dtype = training_dtype()

    def run_hash(self, data_hash: str) -> str:
        """Hash of what defines the run. A Bradley-Terry config hashes exactly as before the DPO objective existed
        (objective and the DPO-only fields are left out), so existing trained RMs keep their hash and are reused.
        For the same reason a renamed field is hashed under its old name (``tuning`` as ``method``)."""
        fields = {_LEGACY_KEYS.get(k, k): v for k, v in asdict(self).items() if k != "frozen_states"}
        if self.objective == "bradley_terry":
            for key in ("objective", *_DPO_ONLY):
                fields.pop(key)
        blob = json.dumps({**fields, "data_hash": data_hash, "rmlib": __version__}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    @classmethod
    def from_stored(cls, stored: dict) -> "TrainConfig":
        """The config a run stored in its ``run.yaml``, written by this version or an older one (which called
        ``tuning`` ``method``)."""
        new_by_old = {old: new for new, old in _LEGACY_KEYS.items()}
        return cls(**{new_by_old.get(k, k): v for k, v in stored.items()})


def stored_tuning(run: dict) -> str | None:
    """Which weights a stored run trained (its ``run.yaml`` or ``rmlib_run.yaml`` record), whether it was written
    before the rename (``method``) or after (``tuning``)."""
    return run.get("tuning", run.get("method"))


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
    """Refuse a config that cannot work, with a message that says what to write, before any model is loaded."""
    if not re.fullmatch(r"[A-Za-z0-9][\w.+-]*", cfg.name or ""):
        raise TrainConfigError(f"run name {cfg.name!r}: use letters, digits, '.', '_', '-', '+' (it becomes "
                               "a folder and the id local:<name>)")
    try:
        spec = get_spec(cfg.base)
    except ModelError as e:
        raise TrainConfigError(f"unknown base model {cfg.base!r}: {e}") from None
    if spec.source == "local":
        raise TrainConfigError(f"base {cfg.base!r} is an rmlib-trained RM; train from its base_model instead")
    if isinstance(cfg.sources, str) or not isinstance(cfg.sources, (list, tuple)):
        hint = f" (write sources=[{cfg.sources!r}])" if isinstance(cfg.sources, str) else ""
        raise TrainConfigError(f"sources must be a list of data sources, not the {type(cfg.sources).__name__} "
                               f"{cfg.sources!r}{hint}; choose from {[*SOURCES, SYNTHETIC]}")
    unknown = [s for s in cfg.sources if s not in (*SOURCES, SYNTHETIC)]
    if unknown or not cfg.sources:
        raise TrainConfigError(f"unknown data source(s) {unknown or cfg.sources}; choose from "
                               f"{[*SOURCES, SYNTHETIC]}")
    try:
        _adapter().validate_python({**asdict(cfg), "sources": list(cfg.sources)})
    except ValidationError as e:
        raise TrainConfigError(_in_words(e.errors()[0])) from None
    if cfg.objective == "dpo" and not (isinstance(cfg.beta, (int, float)) and not isinstance(cfg.beta, bool)
                                       and 0 < cfg.beta < float("inf")):
        raise TrainConfigError(f"beta must be a positive number for objective='dpo' (0.1 is usual), not {cfg.beta!r}")
    if SYNTHETIC in cfg.sources and (cfg.n_pairs or 0) + 2 * cfg.n_test > SYNTHETIC_MAX_PAIRS:
        raise TrainConfigError(f"n_pairs={cfg.n_pairs} and n_test={cfg.n_test}: the {SYNTHETIC} source makes at "
                               f"most {SYNTHETIC_MAX_PAIRS:,} pairs (n_pairs + 2 x n_test of them are drawn); "
                               "lower n_pairs or n_test")
    _check_layers(cfg, spec)


@functools.cache
def _adapter() -> TypeAdapter:
    """pydantic's validator of TrainConfig's annotations, built on first use (a few milliseconds)."""
    return TypeAdapter(TrainConfig)


@functools.cache
def _phrases() -> dict[str, str]:
    """{field: the phrase its annotation's ``description`` gives}: what an error says the field must be."""
    out = {}
    for key, hint in typing.get_type_hints(TrainConfig, include_extras=True).items():
        infos = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, FieldInfo) and m.description]
        if infos:
            out[key] = infos[-1].description
    return out


def _in_words(error: dict) -> str:
    """One pydantic error as the config's own message: "<field> must be <phrase>, not <value>"."""
    key = str(error["loc"][0])
    phrase = _phrases().get(key)
    if phrase is None:
        return f"{key}: {error['msg']}, not {error['input']!r}"
    return f"{key} must be {phrase}, not {error['input']!r}"


def _check_layers(cfg: TrainConfig, spec) -> None:
    """n_layers (last_n) against the base's decoder layers, when the registry records them (a paper RM's
    ``arch``, a tiny model's config), before anything is loaded; the trainer checks the loaded model again."""
    if cfg.tuning != "last_n":
        return
    layers = (spec.arch or {}).get("layers")
    if layers is None and spec.source == "tiny":
        layers = tiny_config(spec.family, 320, 0).num_hidden_layers
    if layers is not None and cfg.n_layers > layers:
        raise TrainConfigError(f"n_layers={cfg.n_layers} but the base {cfg.base} has {layers} decoder layers")

