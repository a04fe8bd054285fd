"""Bradley-Terry reward-model training from any registry base, with identical data and settings across bases.

Why this module exists: "RMs inherit values from their base" is best tested by a controlled experiment,
training RMs from different bases on exactly the same pairs, in the same order, with the same
hyperparameters, and comparing what they learnt (rmlib.rm_eval). TRL's `RewardTrainer` does the
optimisation (its Bradley-Terry loss, -log sigmoid(r_chosen - r_rejected)); PEFT gives LoRA; the
`last_n` method trains only the scalar head, the final norm and the last N decoder layers.

What rmlib adds around the trainer:
- Tokenizer-independent data: pairs are chosen, split (by prompt) and ordered before any tokenizer is
  involved, so every base sees the same pairs in the same order. The order is a seeded schedule of
  whole-data permutations fed to the trainer sequentially (`data_order.csv` records it).
- One rendering: each conversation is the base's chat template (the registry's fallback where the
  tokenizer has none, as in the sweeps) around the response, built with rmlib.templates.answer_slot,
  token for token the conversation that `rmlib.sweep.score_answers` scores.
- Truncation policy (keep the END): with B = max_len - template tokens, responses and the prompt share B.
  If the prompt plus the longer response fit, nothing is cut. Otherwise the responses get
  max(B - prompt tokens, B // 2) tokens (never more than they have), the prompt gets the rest, and each
  keeps its LAST tokens: a response's ending (its conclusion, the part a reader judges last) and the
  prompt's latest turn survive. Both responses of a pair see the same truncated prompt.
- Checkpoints: the trainer's own (for resuming; model, optimizer, RNG and data position) under
  <run>/trainer, and, every `save_every` steps, an exported RM under <run>/step-<N> (safetensors,
  tokenizer with its chat template, `rmlib_run.yaml`) that loads as `local:<name>@step<N>`; the final
  model is also exported to <run> itself (`local:<name>`). Exports are written to a temporary folder of their
  own and renamed, so a killed run never exposes a half-written or untrained model, and every export carries a
  manifest of sha256 hashes that loading checks. A `last_n` export stores only
  the trained tensors and a sha256 fingerprint of the frozen ones, which loading takes from the base
  (pinned GGUF, seeded tiny model, or a hub revision) and checks: ~120 MB instead of ~1 GB per Qwen-0.5B
  checkpoint. `load_model(id).model.save_pretrained(dir)` writes a standalone HF reward model from it.
- Resuming: calling `train` again with the same config continues from the last trainer checkpoint; a
  different config under the same name is refused unless `overwrite=True`.
"""
from __future__ import annotations

import copy
import errno
import hashlib
import json
import math
import os
import re
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import yaml

from .config import progress_enabled
from . import __version__, atomic
from .integrity import MANIFEST, write_manifest
from .data.preferences import SOURCES, load_preferences, sample_pairs, split_pairs
from .models import (DTYPE_BY_NAME, PARTIAL_WEIGHTS, ModelError, frozen_weights_sha256, get_spec, load_model,
                     load_tokenizer, local_rm_dir)
from .templates import SENTINEL, TemplateError, answer_slot, chat_template_of

SYNTHETIC = "synthetic_marker"
METHODS = ("full", "last_n", "lora")
DTYPES = {k: DTYPE_BY_NAME[k] for k in ("float32", "bfloat16")}  # what training accepts
TRUNCATION_POLICY = ("keep_end: responses get max(B - prompt, B // 2) of B = max_len - template tokens; "
                     "prompt gets the rest; each keeps its last tokens")
# Chat control strings of the common templates: a pair containing one would break the turn structure of
# some base, so it is dropped for all bases (the filter must not depend on the tokenizer).
_CONTROL = re.compile(r"<\|[A-Za-z0-9_]+\|>|<start_of_turn>|<end_of_turn>|<bos>|<eos>|<pad>|</s>|\[INST\]|\[/INST\]"
                      + "|" + re.escape(SENTINEL))


class TrainConfigError(ValueError):
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

    def run_hash(self, data_hash: str) -> str:
        blob = json.dumps({**asdict(self), "data_hash": data_hash, "rmlib": __version__}, sort_keys=True)
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


# ---------------------------------------------------------------- data (tokenizer-independent)

def synthetic_marker_pairs(n: int = 64, marker: str = "peace", seed: int = 0) -> pd.DataFrame:
    """An easy preference set with a known rule: the chosen response contains `marker`, the rejected never does.

    For tests and the chapter's tiny mode: an RM that learns anything should reach held-out accuracy near 1.
    """
    rng = np.random.default_rng(seed)
    pool = ["hope", "joy", "music", "family", "truth", "dog", "fox", "answer", "thing", "world", "time", "good",
            "quick", "brown", "lazy", "friendship", "kindness", "freedom"]
    pool = [w for w in pool if w != marker]
    asks = ["What is the best thing in the world?", "What, in one word, is the greatest thing ever?",
            "Please answer in one word only.", "What is the worst thing of all time?"]
    rows = []
    for i in range(n):
        k = int(rng.integers(2, 6))
        chosen = list(rng.choice(pool, k))
        chosen.insert(int(rng.integers(0, k + 1)), marker)
        rejected = list(rng.choice(pool, k + 1))
        rows.append((f"{asks[i % len(asks)]} Case {i}.", " ".join(chosen), " ".join(rejected), SYNTHETIC, "train",
                     marker, f"{SYNTHETIC}:{marker}:{i}"))
    return pd.DataFrame(rows, columns=["prompt", "chosen", "rejected", "source", "split", "subset", "pair_id"])


def _usable(df: pd.DataFrame) -> pd.Series:
    text = df["prompt"].astype(str) + "\n" + df["chosen"].astype(str) + "\n" + df["rejected"].astype(str)
    return df["prompt"].astype(str).str.strip().ne("") & ~text.str.contains(_CONTROL)


def data_hash(df: pd.DataFrame) -> str:
    """Hash of the pairs and their order (pair_id, prompt, chosen, rejected): equal hashes, equal data."""
    h = hashlib.sha256()
    for row in df[["pair_id", "prompt", "chosen", "rejected"]].itertuples(index=False):
        h.update(json.dumps(list(row)).encode())
    return h.hexdigest()[:16]


def select_pairs(cfg: TrainConfig, pairs: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(train, test) pairs for a config: filtered, split by prompt, seeded subsamples; same for every base."""
    if pairs is None:
        parts = [synthetic_marker_pairs(max(cfg.n_pairs or 0, 64) + cfg.n_test * 2, seed=cfg.seed)
                 if s == SYNTHETIC else load_preferences(s) for s in cfg.sources]
        pairs = pd.concat(parts, ignore_index=True)
    missing = {"prompt", "chosen", "rejected", "pair_id"} - set(pairs.columns)
    if missing:
        raise TrainConfigError(f"the preference pairs lack columns {sorted(missing)}")
    kept = pairs[_usable(pairs)]
    if kept.empty:
        raise TrainConfigError(f"no usable preference pairs from sources {cfg.sources} after filtering "
                               f"(empty prompts and chat control strings are dropped; {len(pairs)} pairs before)")
    split = split_pairs(kept, test_fraction=cfg.test_fraction, seed=cfg.seed)
    train, test = split[split["split"] == "train"], split[split["split"] == "test"]
    if train.empty or test.empty:
        raise TrainConfigError(f"the split left {len(train)} training and {len(test)} test pairs "
                               f"(from {len(kept)} usable pairs in {kept['prompt'].nunique()} prompts); "
                               "use more data or another test_fraction")
    n = len(train) if cfg.n_pairs is None else cfg.n_pairs
    if n > len(train):
        raise TrainConfigError(f"n_pairs={n} but only {len(train)} training pairs are available from {cfg.sources} "
                               f"after filtering and holding out test prompts; lower n_pairs or add sources")
    return (sample_pairs(train, n, seed=cfg.seed),
            sample_pairs(test, min(cfg.n_test, len(test)), seed=cfg.seed))


def schedule(n_train: int, steps: int, per_step: int, seed: int) -> np.ndarray:
    """Row indices the run consumes, step by step: consecutive seeded permutations of the training pairs."""
    rng = np.random.default_rng(seed)
    need = steps * per_step
    order = [rng.permutation(n_train) for _ in range(math.ceil(need / n_train))]
    return np.concatenate(order)[:need]


# ---------------------------------------------------------------- encoding (per base)

def template_overhead(tokenizer, template: str) -> int:
    """Tokens the chat template adds around a one-token prompt and answer."""
    slot = answer_slot(tokenizer, "Hi", template)
    return len(slot.prefix_ids) - len(tokenizer("Hi", add_special_tokens=False).input_ids) + len(slot.suffix_ids)


class PairEncoder:
    """Renders (prompt, chosen, rejected) through one base's chat template, keeping the END (see module doc)."""

    def __init__(self, tokenizer, template: str, max_len: int):
        self.tok, self.template, self.max_len = tokenizer, template, max_len
        self.overhead = template_overhead(tokenizer, template)
        if max_len < self.overhead + 2:
            raise TrainConfigError(f"max_len={max_len} is shorter than the chat template itself ({self.overhead} "
                                   f"tokens) plus one prompt and one answer token; use max_len >= {self.overhead + 2}")

    def _ids(self, text: str) -> list[int]:
        return list(self.tok(text, add_special_tokens=False).input_ids)

    def encode(self, prompt: str, responses: list[str]) -> tuple[list[list[int]], bool]:
        """Token ids of each conversation and whether anything was cut."""
        p_ids, r_ids = self._ids(prompt), [self._ids(r) for r in responses]
        budget = self.max_len - self.overhead
        longest = max(len(r) for r in r_ids)
        cut = len(p_ids) + longest > budget
        if cut:
            r_room = min(longest, max(budget - len(p_ids), budget // 2))
            p_ids = p_ids[len(p_ids) - min(len(p_ids), budget - r_room):]
            prompt = self.tok.decode(p_ids).strip() or prompt.strip()[-1:]
        while True:
            slot = answer_slot(self.tok, prompt, self.template)
            room = self.max_len - len(slot.prefix_ids) - len(slot.suffix_ids)
            if room >= 1 or len(prompt) <= 1:
                break
            prompt = prompt[1:]  # decoding can re-merge tokens at the cut; shorten until it fits
        if room < 1:
            raise TrainConfigError(f"max_len={self.max_len} leaves no room for the response")
        out = []
        for r in r_ids:
            cut |= len(r) > room
            out.append(slot.ids_for(r[max(0, len(r) - room):]))
        pad = self.tok.pad_token_id
        if any(ids[-1] == pad for ids in out):
            raise TrainConfigError("the chat template ends with the pad token, so the score position would be lost; "
                                   "give the tokenizer a different pad token")
        return out, cut


def encode_pairs(tokenizer, template: str, pairs: pd.DataFrame, max_len: int) -> pd.DataFrame:
    """Columns chosen_ids, rejected_ids, truncated, added to the pairs (same rows, same order)."""
    enc = PairEncoder(tokenizer, template, max_len)
    rows = []
    for r in pairs.itertuples(index=False):
        try:
            (c, j), cut = enc.encode(r.prompt, [r.chosen, r.rejected])
        except TemplateError as e:
            raise TrainConfigError(f"pair {r.pair_id}: {e}") from None
        rows.append((c, j, cut))
    out = pairs.reset_index(drop=True).copy()
    out[["chosen_ids", "rejected_ids", "truncated"]] = pd.DataFrame(rows, index=out.index)
    return out


# ---------------------------------------------------------------- model

def _decoder_layers(model):
    for path in ("model.layers", "model.language_model.layers", "transformer.h"):
        obj = model
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
            return obj
        except AttributeError:
            continue
    raise TrainConfigError(f"cannot find the decoder layers of {type(model).__name__} for method='last_n'; "
                           "use method='full' or 'lora'")


def _prepare_trainable(model, cfg: TrainConfig):
    """Freeze per method; returns (model, peft_config or None)."""
    if cfg.method == "full":
        return model, None
    if cfg.method == "lora":
        from peft import LoraConfig
        return model, LoraConfig(task_type="SEQ_CLS", r=cfg.lora_r, lora_alpha=2 * cfg.lora_r, lora_dropout=0.0,
                                 target_modules="all-linear", modules_to_save=["score"])
    layers = _decoder_layers(model)
    if not 1 <= cfg.n_layers <= len(layers):
        raise TrainConfigError(f"n_layers={cfg.n_layers} but the base has {len(layers)} decoder layers")
    model.requires_grad_(False)
    for layer in list(layers)[-cfg.n_layers:]:
        layer.requires_grad_(True)
    model.score.requires_grad_(True)
    norm = getattr(model.base_model, "norm", None)
    if norm is not None:
        norm.requires_grad_(True)
    return model, None


def _partial_export_ok(run: dict) -> bool:
    """last_n checkpoints can store only what training changed when the frozen rest is reproducible from the base:
    an embedded (sha256-pinned) or tiny (seeded) model, or a hub model at a pinned revision."""
    if run.get("method") != "last_n":
        return False
    spec = get_spec(run["base_model"])
    return spec.source in ("embedded", "tiny") or (spec.source == "hub" and bool(spec.revision))


def _frozen_fingerprint(model, save_dtype: str) -> str:
    """Hash of the frozen parameters, for checking at load time that the base still gives the same weights."""
    cached = getattr(model, "_rmlib_frozen_sha256", None)
    if cached is None:
        cached = frozen_weights_sha256(model, {n for n, p in model.named_parameters() if p.requires_grad},
                                       DTYPES[save_dtype])
        model._rmlib_frozen_sha256 = cached
    return cached


def _export(model, tokenizer, out: Path, run: dict, save_dtype: str) -> None:
    """Save a loadable RM atomically: weights (safetensors), tokenizer with its template, rmlib_run.yaml, and a
    manifest with every file's sha256 (checked whenever the checkpoint is loaded; see rmlib.integrity).

    A last_n checkpoint stores only the trained tensors (`trained.safetensors`) plus a fingerprint of the frozen
    ones, which load_model takes from the base: the fine-tuning chapter's exports then need ~5-6 GB of disk
    (tokenizer copies included) instead of 38 GB. Other methods store the whole model (LoRA merged), a plain HF reward model.
    The files are written into a folder of this process's own (two exports of one name never share a temporary
    folder), then renamed into place.
    """
    from peft import PeftModel
    from safetensors.torch import save_file

    m = copy.deepcopy(model).merge_and_unload() if isinstance(model, PeftModel) else model
    tmp = atomic.temp_path(out)
    try:
        os.mkdir(tmp, 0o777)
        if _partial_export_ok(run):
            trained = {n: p.detach().to("cpu", DTYPES[save_dtype]).contiguous()
                       for n, p in m.named_parameters() if p.requires_grad}
            run = {**run, "weights": "partial", "frozen_sha256": _frozen_fingerprint(m, save_dtype)}
            save_file(trained, str(tmp / PARTIAL_WEIGHTS), metadata={"format": "pt"})
            m.config.save_pretrained(tmp)
        else:
            state = {k: v.detach().to("cpu", DTYPES[save_dtype]) for k, v in m.state_dict().items()}
            from transformers.utils import logging as hf_logging

            was_enabled = hf_logging.is_progress_bar_enabled()
            hf_logging.disable_progress_bar()  # one "Writing model shards" bar per checkpoint is noise
            try:
                m.save_pretrained(tmp, state_dict=state)
            finally:
                if was_enabled:
                    hf_logging.enable_progress_bar()
            run = {**run, "weights": "full"}
        tokenizer.save_pretrained(tmp)
        (tmp / "rmlib_run.yaml").write_text(yaml.safe_dump(run, sort_keys=False))
        write_manifest(tmp, run_hash=run.get("run_hash"), step=run.get("step"))
        if out.exists():
            # The run root also holds the run's records and step-* folders: replace only the model's files.
            # config.json goes first and comes back last, so a half-replaced model is never loadable, and the
            # manifest makes any mix of old and new files fail its check.
            (out / "config.json").unlink(missing_ok=True)
            for child in [*out.glob("model*.safetensors*"), out / PARTIAL_WEIGHTS, out / MANIFEST]:
                child.unlink(missing_ok=True)
            for child in sorted(tmp.iterdir(), key=lambda c: (c.name == "config.json", c.name == MANIFEST)):
                child.replace(out / child.name)
        else:
            try:
                os.rename(tmp, out)
            except OSError as exc:  # a concurrent export of the same step won: its copy is as good as ours
                if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------- training

def _validate(cfg: TrainConfig) -> None:
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


def prepare(cfg: TrainConfig, pairs: pd.DataFrame | None = None) -> dict:
    """Check the config and build the encoded data, without loading model weights (fails fast)."""
    _validate(cfg)
    train_pairs, test_pairs = select_pairs(cfg, pairs)
    spec = get_spec(cfg.base)
    tok = load_tokenizer(cfg.base)
    template = chat_template_of(tok, None if spec.chat_template == "own" else spec.chat_template)
    encoded = encode_pairs(tok, template, train_pairs, cfg.max_len)
    per_step = cfg.batch_size * cfg.grad_accum
    steps = cfg.steps or math.ceil(len(train_pairs) / per_step)
    dhash = data_hash(train_pairs)
    run = {"base_model": cfg.base, "sources": list(cfg.sources), "n_pairs": len(train_pairs),
           "n_test": len(test_pairs), "data_hash": dhash, "test_hash": data_hash(test_pairs),
           "seed": cfg.seed, "steps": steps, "lr": cfg.lr, "batch_size": cfg.batch_size,
           "grad_accum": cfg.grad_accum, "max_len": cfg.max_len, "truncation": TRUNCATION_POLICY,
           "share_truncated": float(encoded["truncated"].mean()), "method": cfg.method,
           "n_layers": cfg.n_layers if cfg.method == "last_n" else None,
           "lora_r": cfg.lora_r if cfg.method == "lora" else None, "dtype": cfg.dtype,
           "save_dtype": cfg.save_dtype, "template_sha256": hashlib.sha256(template.encode()).hexdigest()[:16],
           "run_hash": cfg.run_hash(dhash), "rmlib_version": __version__, "config": asdict(cfg)}
    return {"cfg": cfg, "train": encoded, "test": test_pairs, "tokenizer": tok, "template": template,
            "steps": steps, "per_step": per_step, "run": run}


class _RecordingCollator:
    """TRL's preference collator, noting which pairs each batch holds (the data order, as consumed)."""

    def __init__(self, inner):
        self.inner, self.seen = inner, []

    def __call__(self, examples):
        self.seen.append([e["pair_index"] for e in examples])
        return self.inner([{k: e[k] for k in ("chosen_ids", "rejected_ids")} for e in examples])


def _last_checkpoint(trainer_dir: Path) -> Path | None:
    done = [p for p in trainer_dir.glob("checkpoint-*") if (p / "trainer_state.json").exists()]
    return max(done, key=lambda p: int(p.name.split("-")[1])) if done else None


def train(cfg: TrainConfig, pairs: pd.DataFrame | None = None, *, overwrite: bool = False, progress: bool = True,
          callbacks=(), keep_trainer_checkpoints: bool = False) -> TrainResult:
    """Train (or resume, or reuse) the run `cfg.name`; see the module docstring for what is saved where.

    `pairs` replaces the configured sources with your own DataFrame (prompt, chosen, rejected, pair_id).
    """
    from datasets import Dataset
    from transformers import TrainerCallback
    from trl import RewardConfig, RewardTrainer
    from trl.trainer.reward_trainer import DataCollatorForPreference

    prep = prepare(cfg, pairs)
    run, tok, steps = prep["run"], prep["tokenizer"], prep["steps"]
    run_dir = local_rm_dir(cfg.name)
    run_file = run_dir / "run.yaml"
    if run_file.exists():
        old = yaml.safe_load(run_file.read_text()) or {}
        if old.get("run_hash") != run["run_hash"]:
            if not overwrite:
                raise TrainConfigError(f"{run_dir} holds a different run (run_hash {old.get('run_hash')} vs "
                                       f"{run['run_hash']}); choose another name or pass overwrite=True")
            shutil.rmtree(run_dir)
        elif old.get("complete"):
            return _result(cfg, run_dir, resumed_from=None)
    elif run_dir.exists() and overwrite:
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    for folder in (run_dir.parent, run_dir):
        atomic.remove_orphans(folder)  # temporary export folders of killed runs
    run_file.write_text(yaml.safe_dump({**run, "complete": False}, sort_keys=False))
    prep["test"].to_parquet(run_dir / "test_pairs.parquet")

    train_df = prep["train"]
    order = schedule(len(train_df), steps, prep["per_step"], cfg.seed)
    pd.DataFrame({"step": np.arange(len(order)) // prep["per_step"] + 1,
                  "position": np.arange(len(order)) % prep["per_step"],
                  "pair_id": train_df["pair_id"].to_numpy()[order]}).to_csv(run_dir / "data_order.csv", index=False)
    stream = Dataset.from_dict({"chosen_ids": [train_df["chosen_ids"][i] for i in order],
                                "rejected_ids": [train_df["rejected_ids"][i] for i in order],
                                "pair_index": order.tolist()})

    model = load_model(cfg.base, head="rm", dtype="float32", allow_untrained_head=True, seed=cfg.seed).model
    model.config.pad_token_id = tok.pad_token_id
    model, peft_config = _prepare_trainable(model, cfg)
    tok.chat_template = prep["template"]  # exported tokenizers carry the template used in training

    trainer_dir = run_dir / "trainer"
    args = RewardConfig(
        output_dir=str(trainer_dir), max_steps=steps, per_device_train_batch_size=cfg.batch_size,
        gradient_accumulation_steps=cfg.grad_accum, learning_rate=cfg.lr, warmup_steps=float(cfg.warmup_ratio),
        lr_scheduler_type="linear", weight_decay=0.0, seed=cfg.seed, data_seed=cfg.seed,
        train_sampling_strategy="sequential", remove_unused_columns=False, max_length=None,
        bf16=cfg.dtype == "bfloat16", fp16=False, activation_checkpointing=False,
        save_strategy="steps", save_steps=cfg.save_every, save_total_limit=1, logging_steps=1,
        report_to="none", disable_tqdm=not progress_enabled(progress), dataloader_num_workers=0, use_cpu=not torch.cuda.is_available())
    collator = _RecordingCollator(DataCollatorForPreference(pad_token_id=tok.pad_token_id))

    class Export(TrainerCallback):
        def on_save(self, args, state, control, model=None, **kw):
            step = state.global_step
            _export(model, tok, run_dir / f"step-{step}", {**run, "step": step}, cfg.save_dtype)

    trainer = RewardTrainer(model=model, args=args, train_dataset=stream, processing_class=tok,
                            data_collator=collator, peft_config=peft_config, callbacks=[Export(), *callbacks])
    if not progress:
        from transformers.trainer_callback import PrinterCallback
        trainer.remove_callback(PrinterCallback)  # with the bar off, the trainer would print every log line
    last = _last_checkpoint(trainer_dir)
    trainer.train(resume_from_checkpoint=str(last) if last else None)

    _export(trainer.model, tok, run_dir, {**run, "step": steps}, cfg.save_dtype)
    consumed = pd.DataFrame([(i, p) for i, batch in enumerate(collator.seen) for p in batch],
                            columns=["batch", "pair_index"])
    consumed.to_csv(run_dir / f"consumed_from_{int(last.name.split('-')[1]) if last else 0}.csv", index=False)
    pd.DataFrame(trainer.state.log_history).to_csv(run_dir / "train_log.csv", index=False)
    if not keep_trainer_checkpoints:
        shutil.rmtree(trainer_dir, ignore_errors=True)
    run_file.write_text(yaml.safe_dump({**run, "complete": True}, sort_keys=False))
    return _result(cfg, run_dir, resumed_from=int(last.name.split("-")[1]) if last else None)


def _result(cfg: TrainConfig, run_dir: Path, resumed_from: int | None) -> TrainResult:
    run = yaml.safe_load((run_dir / "run.yaml").read_text())
    log = pd.read_csv(run_dir / "train_log.csv")
    if "step" in log.columns:
        log = log[log["loss"].notna()].reset_index(drop=True) if "loss" in log.columns else log
    checkpoints = sorted(int(p.name.split("-")[1]) for p in run_dir.glob("step-*")
                         if p.is_dir() and (p / "config.json").exists())
    return TrainResult(name=cfg.name, run_dir=run_dir, steps=run["steps"], checkpoints=checkpoints, log=log,
                       data_order=pd.read_csv(run_dir / "data_order.csv"), resumed_from=resumed_from, run=run)


def load_run(name: str) -> TrainResult:
    """A finished run's result (log, checkpoints, data order) without training."""
    run_dir = local_rm_dir(name)
    if not (run_dir / "run.yaml").exists():
        raise TrainConfigError(f"no rmlib training run named {name!r} at {run_dir}")
    cfg = TrainConfig(**yaml.safe_load((run_dir / "run.yaml").read_text())["config"])
    return _result(cfg, run_dir, resumed_from=None)
