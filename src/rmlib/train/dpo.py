"""The DPO objective of :func:`rmlib.train.train`: an implicit reward model (IM-RM) trained with TRL's DPOTrainer.

Why it sits inside the Bradley-Terry trainer rather than next to it: comparing an explicit RM (a scalar head) with
an implicit one (DPO's β·log πθ/πref) is only fair when both saw the same pairs, in the same order, rendered the same
way, with the same schedule, precision and checkpoints. So a DPO run shares everything with a Bradley-Terry run of
the same config (selection, split, encoding, ``data_order.csv``, exports, resume) except:

* the model: the base as a causal LM (its pretrained LM head, no new head); the reference πref is the base itself;
* the loss: TRL's sigmoid DPO loss on the summed log-prob of the completion (the response and the template's end
  of turn) given the same rendered prompt; β is ``TrainConfig.beta``;
* the reference log-probs are computed once per distinct training pair before the first step and kept in the run
  folder (``ref_logps.parquet``), so training runs one model, not two, and a resumed run does not redo them;
* ``last_n`` trains the last N decoder layers and the final norm only: the LM head is pretrained (unlike the
  Bradley-Terry scalar head) and in small models is usually tied to the input embeddings, so training it would
  also move the embeddings of every token and the run would no longer be "the last N layers".

On a CPU, TRL's fused LM head (its per-token log-probs without the full logits) scores every position of the
batch, the prompt's included, whose labels it then masks; it scores only the completion's positions where Triton
runs, and keeps every position elsewhere only so that a compiling backend (Neuron) sees one shape. On a CPU nothing
compiles, so :func:`completion_positions_only` takes TRL's own compact path there too: the same log-probs (float32:
to rounding, ``tests/integration/test_train_dpo.py``), and a SmolLM2 step of 8 pairs at 64 tokens took 1.17 s
instead of 2.35, 0.69 s with the frozen layers' states (``benchmarks/dpo_step.py``, AMX, bf16; #61: the LM head's
torch fallback was 90% of a DPO step).

TRL logs, per step, the policy's summed log-probs of the chosen and rejected completions (``logps/chosen``,
``logps/rejected``) and the implicit reward margin (``rewards/margins``): the record of likelihood displacement.
The export is a plain causal LM (``local:<name>``, loaded with head 'lm'); its implicit reward is computed by
:func:`rmlib.train.evaluate.score_pairs`, which loads the base as πref.
"""
from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from rmlib.storage import atomic
from rmlib.train.config import TrainConfig
from rmlib.train.resume import TrainedPartCheckpoints

__all__ = ["REF_LOGPS", "dpo_stream", "dpo_trainer", "lm_peft_config", "completion_positions_only"]

REF_LOGPS = "ref_logps.parquet"


def lm_peft_config(cfg: TrainConfig):
    """LoRA on every linear layer of the causal LM except its head (TRL reads lm_head's weight directly)."""
    from peft import LoraConfig
    return LoraConfig(task_type="CAUSAL_LM", r=cfg.lora_r, lora_alpha=2 * cfg.lora_r, lora_dropout=0.0,
                      target_modules="all-linear")


def dpo_stream(train_df: pd.DataFrame, order: np.ndarray) -> dict:
    """The scheduled pairs as TRL's tokenised preference format: the shared rendered prompt, then each completion."""
    cols = {"prompt_ids": [], "chosen_ids": [], "rejected_ids": [], "pair_index": []}
    for i in order:
        n = int(train_df["prompt_len"][i])
        c, r = list(train_df["chosen_ids"][i]), list(train_df["rejected_ids"][i])
        cols["prompt_ids"].append(c[:n])
        cols["chosen_ids"].append(c[n:])
        cols["rejected_ids"].append(r[n:])
        cols["pair_index"].append(int(i))
    return cols


@contextlib.contextmanager
def completion_positions_only():
    """While the block runs, TRL's fused LM head scores only the positions with a label (the completion's) on a CPU
    too, as it does where Triton runs (see the module docstring). TRL decides it by ``_use_triton`` in
    ``trl.trainer.utils`` (1.16), read at each call; its kernel keeps its own test, so it still runs as torch ops."""
    import trl.trainer.utils as trl_utils

    real = getattr(trl_utils, "_use_triton", None)
    if real is None:  # another TRL: its own choice stands
        yield
        return
    trl_utils._use_triton = lambda device: torch.device(device).type == "cpu" or real(device)
    try:
        yield
    finally:
        trl_utils._use_triton = real


def dpo_trainer(*, model, args, stream, tok, collator, callbacks, peft_config, train_df: pd.DataFrame,
                run_dir: Path):
    """TRL's DPOTrainer over rmlib's encoded stream, with reference log-probs cached per distinct pair."""
    from datasets import Dataset
    from trl import DPOTrainer

    class RmlibDPOTrainer(TrainedPartCheckpoints, DPOTrainer):
        def _compute_loss(self, model, inputs, return_outputs):
            with completion_positions_only():
                return super()._compute_loss(model, inputs, return_outputs)

        def _prepare_dataset(self, dataset, processing_class, args, dataset_name):
            return dataset  # rmlib encoded it already: the very conversations the Bradley-Terry run trains on

        def _precompute_ref_logps(self, dataset, name, batch_size):
            cache = run_dir / REF_LOGPS
            if cache.exists():
                ref = pd.read_parquet(cache)
            else:  # once per distinct pair, by TRL's own reference pass, on the base (nothing trained yet)
                distinct = np.arange(len(train_df))
                with completion_positions_only():
                    computed = super()._precompute_ref_logps(Dataset.from_dict(dpo_stream(train_df, distinct)),
                                                             name, batch_size)
                ref = pd.DataFrame({"pair_id": train_df["pair_id"].to_numpy(),
                                    "ref_chosen_logps": np.asarray(computed["ref_chosen_logps"], dtype=float),
                                    "ref_rejected_logps": np.asarray(computed["ref_rejected_logps"], dtype=float)})
                with atomic.writing_file(cache) as tmp:
                    ref.to_parquet(tmp)
            if ref["pair_id"].tolist() != train_df["pair_id"].tolist():
                raise RuntimeError(f"{cache} does not belong to this run's training pairs; delete it")
            idx = np.asarray(dataset["pair_index"])
            dataset = dataset.add_column("ref_chosen_logps", ref["ref_chosen_logps"].to_numpy()[idx].tolist())
            return dataset.add_column("ref_rejected_logps", ref["ref_rejected_logps"].to_numpy()[idx].tolist())

    trainer = RmlibDPOTrainer(model=model, args=args, train_dataset=Dataset.from_dict(stream), processing_class=tok,
                              data_collator=collator, peft_config=peft_config, callbacks=callbacks)
    collator.seen.clear()  # the reference pass went through the collator too; only training batches are the order
    return trainer
