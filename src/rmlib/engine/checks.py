"""What a sweep refuses before it starts: bad candidate ids, batch sizes, over-long conversations, non-finite scores.

Each check fails with a :class:`SweepError` that says what was wrong and how to fix it, before anything is computed
or written (a non-finite score is refused before its shard is written).
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd
import torch

from rmlib.engine.tokens import vocab_ids
from rmlib.errors import SweepError
from rmlib.models import LoadedModel
from rmlib.models import cached_model
from rmlib.models.devices import model_devices

__all__ = ["SweepError", "candidate_ids", "check_batch_size", "check_length", "check_finite",
           "auto_batch_size", "batch_size_for_free", "resolve_model"]

def candidate_ids(lm: LoadedModel, tokens=None) -> np.ndarray:
    """The ids to sweep: all of the tokenizer's ids by default, or a validated slice/list."""
    n_vocab = min(len(lm.tokenizer), lm.model.get_input_embeddings().weight.shape[0])
    named = vocab_ids(tokens, n_vocab)
    huge = [t for t in named if not isinstance(named, range) and abs(int(t)) >= 2 ** 63]
    if huge:  # numpy would raise a bare OverflowError
        raise SweepError(f"token ids out of range [0, {n_vocab}) for {lm.spec.id}: {huge[:3]}")
    ids = np.asarray(named, dtype=np.int64)
    if ids.size == 0:
        raise SweepError("the vocabulary slice is empty; give at least one token id")
    bad = ids[(ids < 0) | (ids >= n_vocab)]
    if bad.size:
        raise SweepError(f"token ids out of range [0, {n_vocab}) for {lm.spec.id}: {bad[:5].tolist()}")
    if np.unique(ids).size != ids.size:
        raise SweepError("the vocabulary slice repeats token ids")
    return ids


def check_batch_size(batch_size) -> None:
    """None (automatic) or a positive integer; 0, negatives and floats are refused, not silently replaced."""
    if batch_size is None:
        return
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
        raise SweepError(f"batch_size must be a positive integer or None (automatic), not {batch_size!r}")


def check_length(lm: LoadedModel, n_tokens: int, what: str) -> None:
    """Refuse a conversation longer than the model's context (it would silently read positions never trained)."""
    limit = lm.max_length
    if limit is not None and n_tokens > limit:
        raise SweepError(f"{what} is {n_tokens} tokens with the chat template, but {lm.spec.id} takes at most "
                         f"{limit} tokens; shorten it")


def check_finite(df: pd.DataFrame, columns, what: str) -> None:
    """NaN and +-inf scores are refused before anything is written (they would poison every rank and mean)."""
    values = df[list(columns)].to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values).all(axis=1)
    if bad.any():
        kinds = sorted({"NaN" if np.isnan(v) else ("+inf" if v > 0 else "-inf")
                        for v in values[bad].ravel() if not np.isfinite(v)})
        raise SweepError(f"{int(bad.sum())} non-finite ({', '.join(kinds)}) score(s) for {what}; nothing was marked "
                         "complete. Try dtype='float32' or check the model's weights.")


def batch_size_for_free(free_bytes: Mapping[str, int], per_row: int, fraction: float = 0.5, cap: int = 8192) -> int:
    """The largest batch whose activations (``per_row`` bytes a row) fit in ``fraction`` of the free memory of
    every device the model spans (device -> free bytes), between 1 and ``cap``. Pure: the numbers are passed in.

    The minimum over devices, not the sum: a model split layer by layer (accelerate's sequential device map) runs
    each batch through its GPUs one after another, and every GPU computes its layers on the *whole* batch, so each
    must hold one layer's activations for all of its rows; the GPU with the least free memory bounds the batch.
    Summing the budgets would size the batch as if it were divided between the GPUs, and overfill each of them.
    """
    if not free_bytes:
        raise ValueError("no device to size the batch for")
    budget = fraction * min(free_bytes.values())
    return int(max(1, min(cap, budget // max(per_row, 1))))


def auto_batch_size(lm: LoadedModel, seq_len: int) -> int:
    """CPU: ~512 new positions a batch (GEMMs saturate there). GPU: from the free memory of every GPU the model
    spans (:func:`batch_size_for_free`: the tightest one bounds the batch)."""
    if lm.device.type == "cuda":
        gpus = [d for d in model_devices(lm.model) if d.type == "cuda"] or [lm.device]
        free = {str(d): torch.cuda.mem_get_info(d)[0] for d in gpus}
        cfg = lm.model.config
        hidden = getattr(cfg, "hidden_size", 4096)
        inter = getattr(cfg, "intermediate_size", 4 * hidden)
        per_row = seq_len * (6 * hidden + 3 * inter) * torch.finfo(lm.dtype).bits // 8 * 4
        return batch_size_for_free(free, per_row)
    return max(1, min(1024, 512 // max(seq_len, 1)))


def resolve_model(model, load=None) -> LoadedModel:
    """``model`` itself when it is a LoadedModel, else the process-wide cached model for that id and ``load``
    (:class:`rmlib.models.LoadOptions`). Loading options with an already loaded model are an error: they would
    change nothing but could be taken for a setting of the computation."""
    if isinstance(model, LoadedModel):
        if load is not None:
            raise SweepError(f"load={load!r} are loading options; with a loaded model, pass them to load_model")
        return model
    return cached_model(model, load)
