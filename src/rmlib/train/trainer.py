"""Reward-model training with TRL: identical data and settings across bases and objectives, resumable.

``objective='bradley_terry'`` (an explicit RM): TRL's ``RewardTrainer`` does the optimisation (its Bradley-Terry loss,
-log sigmoid(r_chosen - r_rejected)); PEFT gives LoRA; ``tuning="last_n"`` trains only the scalar head, the final
norm and the last N decoder layers. ``objective='dpo'`` (an implicit RM): TRL's ``DPOTrainer`` on the same stream of
pairs, see :mod:`rmlib.train.dpo`. The
trainer's own checkpoints (model, optimizer, RNG and data position) live under ``<run>/trainer`` for resuming;
calling :func:`train` again with the same config continues from the last one, and a different config under the same
name is refused unless ``overwrite=True``. The data order each step consumed is recorded (``data_order.csv``).
Resume checkpoints carry sha256 hashes and are checked before use (:mod:`rmlib.train.resume`); the run's records
are written atomically, so a full disk leaves no partial file (:class:`TrainWriteError`).
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import os
import shutil
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import yaml

from rmlib import costs
from rmlib import __version__
from rmlib.config import PROGRESS_FILE_ENV, progress_bar, progress_enabled
from rmlib.errors import RmlibError
from rmlib.models import chat_template_of, load_model, load_tokenizer
from rmlib.models.local import frozen_weights_sha256
from rmlib.registry import get_spec
from rmlib.trained import local_rm_dir
from rmlib.storage import atomic
from rmlib.train.config import TrainConfig, TrainConfigError, TrainResult, validate
from rmlib.train.dpo import dpo_stream, dpo_trainer, lm_peft_config
from rmlib.train.encode import TRUNCATION_POLICY, encode_pairs
from rmlib.train.export import TrainWriteError, export, frozen_part_from_base
from rmlib.train.frozen import FrozenStates, FrozenStatesError, decoder_layers, frozen_layer_count, serving_frozen_layers
from rmlib.train.pairs import data_hash, schedule, select_pairs
from rmlib.train.resume import TrainedPartCheckpoints, hash_checkpoints, resume_checkpoint

__all__ = ["prepare", "train", "load_run", "TrainingDiverged", "TrainWriteError"]


def _write_record(path: Path, write) -> None:
    """Write one of the run's records atomically with ``write(tmp_path)``: on failure no partial file remains."""
    try:
        with atomic.writing_file(path) as tmp:
            write(tmp)
    except OSError as exc:
        raise TrainWriteError.of(exc, path) from exc


class TrainingDiverged(RmlibError, RuntimeError):
    """A non-finite loss or weight during training: the run stops, and nothing from that step on is exported."""


def _check_finite(model, state_step: int, cfg: TrainConfig, loss=None) -> None:
    """Stop a run whose loss or trainable weights became NaN or +-inf (e.g. lr=inf), before anything is exported."""
    why = None
    if loss is not None:
        if not math.isfinite(float(loss)):
            why = f"the loss is {float(loss)}"
    elif model is not None:
        with torch.no_grad():
            bad = _non_finite_weight(model)
        if bad is not None:
            why = f"the weight {bad} holds NaN or infinite values"
    if why:
        raise TrainingDiverged(f"training {cfg.name!r} diverged at step {state_step}: {why} (lr={cfg.lr}, "
                               f"dtype={cfg.dtype}). Nothing from this step on was exported and the run is not "
                               "marked complete; lower lr (2e-5 is usual) and train again with overwrite=True")


def _non_finite_weight(model) -> str | None:
    """The name of the first trainable weight that holds a NaN or an infinity, or None. Checked after every step, so
    first by one fused norm of all of them (non-finite whenever any element is; #61: a per-tensor isfinite cost 4x
    as much, ~6% of a SmolLM2 step), and tensor by tensor only when that norm is not finite."""
    trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    if not trainable or torch.isfinite(torch.nn.utils.get_total_norm([p for _, p in trainable])):
        return None
    return next((n for n, p in trainable if not torch.isfinite(p).all()), None)


def _prepare_trainable(model, cfg: TrainConfig):
    """Freeze what ``cfg.tuning`` leaves untrained; returns (model, peft_config or None). For DPO, last_n leaves the LM
    head frozen (see rmlib.train.dpo: it is pretrained and often tied to the input embeddings)."""
    if cfg.tuning == "full":
        return model, None
    if cfg.tuning == "lora" and cfg.objective == "dpo":
        return model, lm_peft_config(cfg)
    if cfg.tuning == "lora":
        from peft import LoraConfig
        return model, LoraConfig(task_type="SEQ_CLS", r=cfg.lora_r, lora_alpha=2 * cfg.lora_r, lora_dropout=0.0,
                                 target_modules="all-linear", modules_to_save=["score"])
    try:
        layers = decoder_layers(model)
    except FrozenStatesError:
        raise TrainConfigError(f"cannot find the decoder layers of {type(model).__name__} for tuning='last_n'; "
                               "use tuning='full' or 'lora'") from None
    if not 1 <= cfg.n_layers <= len(layers):
        raise TrainConfigError(f"n_layers={cfg.n_layers} but the base has {len(layers)} decoder layers")
    model.requires_grad_(False)
    for layer in list(layers)[-cfg.n_layers:]:
        layer.requires_grad_(True)
    if cfg.objective == "bradley_terry":
        model.score.requires_grad_(True)
    norm = getattr(model.base_model, "norm", None)
    if norm is not None:
        norm.requires_grad_(True)
    return model, None


def prepare(cfg: TrainConfig, pairs: pd.DataFrame | None = None) -> dict:
    """Check the config and build the encoded data, without loading model weights (fails fast)."""
    validate(cfg)
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
           "share_truncated": float(encoded["truncated"].mean()), "tuning": cfg.tuning,
           "n_layers": cfg.n_layers if cfg.tuning == "last_n" else None,
           "lora_r": cfg.lora_r if cfg.tuning == "lora" else None, "dtype": cfg.dtype,
           "save_dtype": cfg.save_dtype, "template_sha256": hashlib.sha256(template.encode()).hexdigest()[:16],
           "run_hash": cfg.run_hash(dhash), "rmlib_version": __version__, "config": asdict(cfg)}
    if cfg.objective == "dpo":  # a Bradley-Terry run's record stays as it was
        run.update(objective="dpo", beta=cfg.beta, reference=cfg.base)
    return {"cfg": cfg, "train": encoded, "test": test_pairs, "tokenizer": tok, "template": template,
            "steps": steps, "per_step": per_step, "run": run}


class _RecordingCollator:
    """TRL's preference collator, noting which pairs each batch holds (the data order, as consumed)."""

    def __init__(self, inner):
        self.inner, self.seen = inner, []

    def __call__(self, examples):
        self.seen.append([e["pair_index"] for e in examples])
        return self.inner([{k: v for k, v in e.items() if k != "pair_index"} for e in examples])


@costs.phase("train")
def train(cfg: TrainConfig, pairs: pd.DataFrame | None = None, *, overwrite: bool = False, progress: bool = True,
          callbacks=(), keep_trainer_checkpoints: bool = False) -> TrainResult:
    """Train (or resume, or reuse) the run `cfg.name`; see the module docstring for what is saved where.

    `pairs` replaces the configured sources with your own DataFrame (prompt, chosen, rejected, pair_id).
    """
    from trl import RewardTrainer

    prep = prepare(cfg, pairs)
    run, tok, steps = prep["run"], prep["tokenizer"], prep["steps"]
    run_dir = local_rm_dir(cfg.name)
    run_file = run_dir / "run.yaml"
    if _open_run_dir(run_dir, run["run_hash"], overwrite):
        return _result(cfg, run_dir, resumed_from=None)
    _write_record(run_file, lambda tmp: tmp.write_text(yaml.safe_dump({**run, "complete": False}, sort_keys=False)))
    _write_record(run_dir / "test_pairs.parquet", prep["test"].to_parquet)
    train_df = prep["train"]
    dpo = cfg.objective == "dpo"
    stream = _data_stream(train_df, steps, prep["per_step"], cfg.seed, dpo, run_dir)

    # DPO trains the base as a causal LM (its implicit reward needs the LM head); Bradley-Terry adds a scalar head
    model = load_model(cfg.base, head="lm" if dpo else "rm", dtype="float32", allow_untrained_head=not dpo,
                       seed=cfg.seed).model
    model.config.pad_token_id = tok.pad_token_id
    model, peft_config = _prepare_trainable(model, cfg)
    tok.chat_template = prep["template"]  # exported tokenizers carry the template used in training

    trainer_dir = run_dir / "trainer"
    args, collator = _trainer_args(cfg, trainer_dir, steps, progress, tok.pad_token_id)
    callbacks = [*_callbacks(cfg, tok, run, run_dir), *callbacks]
    if dpo:
        trainer = dpo_trainer(model=model, args=args, stream=stream, tok=tok, collator=collator, callbacks=callbacks,
                              peft_config=peft_config, train_df=train_df, run_dir=run_dir)
    else:
        trainer = type("RmlibRewardTrainer", (TrainedPartCheckpoints, RewardTrainer), {})(
            model=model, args=args, train_dataset=stream, processing_class=tok, data_collator=collator,
            peft_config=peft_config, callbacks=callbacks)
    # resume checkpoints keep only the trained tensors where the frozen rest is the pinned base (rmlib.train.resume)
    trainer.trained_only = peft_config is None and cfg.tuning == "last_n" and frozen_part_from_base(run)
    trainer.save_last_step = keep_trainer_checkpoints  # otherwise trainer/ is deleted once the last step is exported
    if args.disable_tqdm:  # no bar (asked for none, or TQDM_DISABLE in a book run): the trainer would print instead
        from transformers.trainer_callback import PrinterCallback
        trainer.remove_callback(PrinterCallback)  # every log line as a dict, onto the page
    last = resume_checkpoint(trainer_dir)  # the newest intact one; damaged ones are set aside with a warning
    # DPO's last_n too: TRL's preference batches are the chosen and rejected sequences whole, right-padded (its
    # reference log-probs were computed above, by the full forward, when the trainer was built)
    frozen = None if peft_config is not None else _frozen_states(model, cfg, train_df, tok.pad_token_id, progress)
    with serving_frozen_layers(frozen) if frozen is not None else contextlib.nullcontext():
        trainer.train(resume_from_checkpoint=str(last) if last else None)

    _check_finite(trainer.model, steps, cfg)
    export(trainer.model, tok, run_dir, {**run, "step": steps}, cfg.save_dtype)
    consumed = pd.DataFrame([(i, p) for i, batch in enumerate(collator.seen) for p in batch],
                            columns=["batch", "pair_index"])
    consumed.to_csv(run_dir / f"consumed_from_{int(last.name.split('-')[1]) if last else 0}.csv", index=False)
    pd.DataFrame(trainer.state.log_history).to_csv(run_dir / "train_log.csv", index=False)
    if not keep_trainer_checkpoints:
        shutil.rmtree(trainer_dir, ignore_errors=True)
    _write_record(run_file, lambda tmp: tmp.write_text(yaml.safe_dump({**run, "complete": True}, sort_keys=False)))
    return _result(cfg, run_dir, resumed_from=int(last.name.split("-")[1]) if last else None)


def _frozen_states(model, cfg: TrainConfig, train_df: pd.DataFrame, pad_token_id: int, progress: bool):
    """The hidden states after the frozen layers for every training sequence, computed once (or read from the
    cache: :mod:`rmlib.train.frozen`), or None when no layer is frozen (``full`` tuning) or ``cfg.frozen_states``
    is off. Keyed by the base and the sha256 of its frozen weights (float32), so they are shared only by runs whose
    frozen part is the same function: a DPO run's and a Bradley-Terry run's of the same base and data share them
    where the base ties its LM head to the embeddings (its frozen weights are then the same tensors)."""
    k = frozen_layer_count(model) if cfg.frozen_states else 0
    if k == 0:
        return None
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    identity = {"base": cfg.base, "frozen_sha256": frozen_weights_sha256(model, trainable, torch.float32)}
    states = FrozenStates(model, k, pad_token_id, identity,
                          autocast_dtype=torch.bfloat16 if cfg.dtype == "bfloat16" else None)
    states.ensure([*train_df["chosen_ids"], *train_df["rejected_ids"]], batch_size=2 * cfg.batch_size,
                  progress=progress_enabled(progress))
    return states


def _open_run_dir(run_dir: Path, run_hash: str, overwrite: bool) -> bool:
    """Make ``run_dir`` ready for the run ``run_hash``; True when it already holds that run, complete. A folder of a
    different run is refused unless ``overwrite``, which removes it."""
    run_file = run_dir / "run.yaml"
    if run_file.exists():
        old = yaml.safe_load(run_file.read_text()) or {}
        if old.get("run_hash") != run_hash:
            if not overwrite:
                raise TrainConfigError(f"{run_dir} holds a different run (run_hash {old.get('run_hash')} vs "
                                       f"{run_hash}); choose another name or pass overwrite=True")
            shutil.rmtree(run_dir)
        elif old.get("complete"):
            return True
    elif run_dir.exists() and overwrite:
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    for folder in (run_dir.parent, run_dir):
        atomic.remove_orphans(folder)  # temporary export folders of killed runs
    return False


def _data_stream(train_df: pd.DataFrame, steps: int, per_step: int, seed: int, dpo: bool, run_dir: Path):
    """The training pairs in the order the run consumes them (recorded as ``data_order.csv``), as the trainer's
    dataset."""
    from datasets import Dataset

    order = schedule(len(train_df), steps, per_step, seed)
    order_df = pd.DataFrame({"step": np.arange(len(order)) // per_step + 1,
                             "position": np.arange(len(order)) % per_step,
                             "pair_id": train_df["pair_id"].to_numpy()[order]})
    _write_record(run_dir / "data_order.csv", lambda tmp: order_df.to_csv(tmp, index=False))
    if dpo:
        return dpo_stream(train_df, order)
    return Dataset.from_dict({"chosen_ids": [train_df["chosen_ids"][i] for i in order],
                              "rejected_ids": [train_df["rejected_ids"][i] for i in order],
                              "pair_index": order.tolist()})


def _trainer_args(cfg: TrainConfig, trainer_dir: Path, steps: int, progress: bool, pad_token_id: int):
    """TRL's config for the run (a reward or a DPO trainer) and a collator that records the pairs of each batch."""
    from trl import DPOConfig, RewardConfig
    from trl.trainer.dpo_trainer import DataCollatorForPreference as DPOCollator
    from trl.trainer.reward_trainer import DataCollatorForPreference

    common = dict(
        output_dir=str(trainer_dir), max_steps=steps, per_device_train_batch_size=cfg.batch_size,
        gradient_accumulation_steps=cfg.grad_accum, learning_rate=cfg.lr, warmup_steps=float(cfg.warmup_ratio),
        lr_scheduler_type="linear", weight_decay=0.0, seed=cfg.seed, data_seed=cfg.seed,
        train_sampling_strategy="sequential", remove_unused_columns=False, max_length=None,
        bf16=cfg.dtype == "bfloat16", fp16=False, activation_checkpointing=False,
        save_strategy="steps", save_steps=cfg.save_every, save_total_limit=1, logging_steps=1,
        report_to="none", disable_tqdm=not progress_enabled(progress), dataloader_num_workers=0,
        use_cpu=not torch.cuda.is_available())
    if cfg.objective == "dpo":
        args = DPOConfig(**common, beta=cfg.beta, loss_type=["sigmoid"],
                         precompute_ref_log_probs=True, precompute_ref_batch_size=2 * cfg.batch_size)
        return args, _RecordingCollator(DPOCollator(pad_token_id=pad_token_id))
    return RewardConfig(**common), _RecordingCollator(DataCollatorForPreference(pad_token_id=pad_token_id))


def _callbacks(cfg: TrainConfig, tok, run: dict, run_dir: Path) -> list:
    """The run's own trainer callbacks: stop on a non-finite loss or weight, hash each checkpoint, export each
    saved step as a ``local:`` checkpoint, and report steps with an ETA to ``make book``."""
    from transformers import TrainerCallback

    class Export(TrainerCallback):
        def on_save(self, args, state, control, model=None, **kw):
            step = state.global_step
            _check_finite(model, step, cfg)
            export(model, tok, run_dir / f"step-{step}", {**run, "step": step}, cfg.save_dtype)

    class Finite(TrainerCallback):
        """A non-finite loss (logged every step) or trainable weight (after each optimizer step) stops the run
        before the step's checkpoint is saved or exported (on_save runs after on_step_end and on_log)."""

        def on_step_end(self, args, state, control, model=None, **kw):
            _check_finite(model, state.global_step, cfg)

        def on_log(self, args, state, control, logs=None, **kw):
            if logs and "loss" in logs:
                _check_finite(kw.get("model"), state.global_step, cfg, loss=logs["loss"])

    class BookProgress(TrainerCallback):
        """Training steps and ETA for `make book` (a progress file; see rmlib.config.progress_bar), never the page."""
        bar = None

        def on_train_begin(self, args, state, control, **kw):
            if os.environ.get(PROGRESS_FILE_ENV):
                self.bar = progress_bar(total=state.max_steps, initial=state.global_step, unit="step",
                                        desc=f"training {cfg.name}")

        def on_step_end(self, args, state, control, **kw):
            if self.bar is not None:
                self.bar.update(1)

        def on_train_end(self, args, state, control, **kw):
            if self.bar is not None:
                self.bar.close()

    return [Finite(), hash_checkpoints(run["run_hash"]), Export(), BookProgress()]


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
    cfg = TrainConfig.from_stored(yaml.safe_load((run_dir / "run.yaml").read_text())["config"])
    return _result(cfg, run_dir, resumed_from=None)
