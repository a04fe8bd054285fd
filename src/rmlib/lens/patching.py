"""Interventions that check an attribution: activation patching between paired inputs, and ablations.

A block's direct attribution (:mod:`rmlib.lens.attribution`) says what it writes straight into the reward; what the
block *causes* includes what later blocks compute from it. **Patching** runs the corrupt input (a communion word)
with one block's output taken from the clean input (an agency word) at every position, and measures how far the
reward moves: the block's total effect on the gap. **Residual patching** swaps the whole stream after one layer at
chosen positions: at the read position it shows how much of the gap has reached it by that layer; at the answer's
positions, how much is still carried there. **Ablation** replaces a block's output by its mean over the batch (mean-
ablation) or by another row's (resample-ablation) and measures the change from the clean reward.

Every run is the whole batch of pairs at once (one forward per block): inputs of a pair must have the same length.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from rmlib.lens.attribution import Readout
from rmlib.lens.blocks import LensError, layer_modules, run_with, writers

__all__ = ["reward", "patch_blocks", "patch_residual", "ablate"]


def reward(logits: torch.Tensor, positions: torch.Tensor, readout: Readout, token_ids=None) -> np.ndarray:
    """[B, K]: the model's own reward in a run's output (an RM's column 0; an LM's logits of ``token_ids``)."""
    if readout.kind == "rm_score":
        return logits[:, :1].cpu().numpy()
    if token_ids is None:
        raise LensError("an LM readout needs token_ids: the vocabulary ids of its rows")
    rows = logits[torch.arange(len(logits), device=logits.device), positions]
    return rows[:, torch.as_tensor(list(token_ids), device=logits.device)].cpu().numpy()


def _check_pairs(clean, corrupt):
    if clean[0].shape != corrupt[0].shape or not torch.equal(clean[1], corrupt[1]):
        raise LensError(f"paired inputs must have the same shape and padding to be patched position by position, "
                        f"got {tuple(clean[0].shape)} and {tuple(corrupt[0].shape)}: pair answers of one token each "
                        "under one prompt")
    if not torch.equal(clean[2], corrupt[2]):
        raise LensError("paired inputs must be read at the same positions")


def _frame(effects: dict, base: np.ndarray, labels, meta: dict) -> pd.DataFrame:
    rows = []
    for name, r in effects.items():
        for b in range(r.shape[0]):
            for k, label in enumerate(labels):
                rows.append({"pair": b, "component": name, **meta.get(name, {}), "label": label,
                             "effect": float(r[b, k] - base[b, k])})
    return pd.DataFrame(rows)


def patch_blocks(model, clean, corrupt, readout: Readout, token_ids=None) -> pd.DataFrame:
    """Each block's patching effect: reward(corrupt with the block's output from clean) - reward(corrupt), per pair.
    ``clean`` and ``corrupt``: ``(ids, mask, positions)`` batches (:func:`rmlib.lens.attribution.batch`), paired row
    by row. Returns pair, component, layer, kind, label, effect; ``attrs['gap']`` holds reward(clean) -
    reward(corrupt) per pair [B, K]."""
    _check_pairs(clean, corrupt)
    ws = writers(model)
    seen, clean_logits = run_with(model, *clean[:2], record=[w.module for w in ws], final_input=False)
    _, corrupt_logits = run_with(model, *corrupt[:2], final_input=False)
    base = reward(corrupt_logits, corrupt[2], readout, token_ids)
    effects = {}
    for w in ws:
        _, logits = run_with(model, *corrupt[:2], replace={w.module: lambda out, s=seen[w.module]: s},
                             final_input=False)
        effects[w.name] = reward(logits, corrupt[2], readout, token_ids)
    out = _frame(effects, base, readout.labels, {w.name: {"layer": w.layer, "kind": w.kind} for w in ws})
    out.attrs["gap"] = reward(clean_logits, clean[2], readout, token_ids) - base
    return out


def _positions_mask(clean, corrupt, at: str) -> torch.Tensor:
    ids = clean[0]
    if at == "read":
        mask = torch.zeros_like(ids, dtype=torch.bool)
        mask[torch.arange(len(ids)), clean[2]] = True
        return mask
    if at == "answer":
        return clean[0] != corrupt[0]
    raise LensError(f"at must be 'read' or 'answer', not {at!r}")


def patch_residual(model, clean, corrupt, readout: Readout, at: str = "read", token_ids=None) -> pd.DataFrame:
    """The residual after each layer patched from clean into corrupt at ``at`` ('read': the read position;
    'answer': the positions where the pair's ids differ). Returns pair, component (``after L<i>``), layer, label,
    effect."""
    _check_pairs(clean, corrupt)
    layers = layer_modules(model)
    where = _positions_mask(clean, corrupt, at)[..., None]
    seen, _ = run_with(model, *clean[:2], record=layers, final_input=False)
    _, corrupt_logits = run_with(model, *corrupt[:2], final_input=False)
    base = reward(corrupt_logits, corrupt[2], readout, token_ids)
    effects = {}
    for i, layer in enumerate(layers):
        def swap(out, s=seen[layer]):
            return torch.where(where.to(out.device), s.to(out.dtype), out)
        _, logits = run_with(model, *corrupt[:2], replace={layer: swap}, final_input=False)
        effects[f"after L{i}"] = reward(logits, corrupt[2], readout, token_ids)
    return _frame(effects, base, readout.labels, {f"after L{i}": {"layer": i} for i in range(len(layers))})


def ablate(model, inputs, readout: Readout, how: str = "mean", seed: int = 0, token_ids=None) -> pd.DataFrame:
    """Each block's output replaced by its mean over the batch at each position ('mean'), or by another row's
    output ('resample': a random derangement of the rows); effect = reward(ablated) - reward(clean), per row.
    The rows must have the same length (one prompt, one-token answers)."""
    ids, mask, positions = inputs
    if how not in ("mean", "resample"):
        raise LensError(f"how must be 'mean' or 'resample', not {how!r}")
    if len(ids) < 2 or not bool(mask.all()):
        raise LensError("ablation needs at least two rows of the same length (no padding)")
    ws = writers(model)
    seen, logits = run_with(model, ids, mask, record=[w.module for w in ws], final_input=False)
    base = reward(logits, positions, readout, token_ids)
    n = len(ids)
    order = (np.arange(n) + np.random.default_rng(seed).integers(1, n)) % n  # a shift: no row keeps its own
    effects = {}
    for w in ws:
        s = seen[w.module]
        new = s.mean(0, keepdim=True).expand_as(s) if how == "mean" else s[torch.as_tensor(order)]
        _, out = run_with(model, ids, mask, replace={w.module: lambda o, v=new: v}, final_input=False)
        effects[w.name] = reward(out, positions, readout, token_ids)
    return _frame(effects, base, readout.labels, {w.name: {"layer": w.layer, "kind": w.kind} for w in ws})
