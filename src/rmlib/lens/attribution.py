"""A reward split into what each block wrote: the direct attribution, and the reward lens layer by layer.

A reward read off a decoder is linear in the final norm's output: an RM's head is ``w . norm(x) + b`` at one position,
an LM's logit of token ``t`` is ``W_U[t] . norm(x)``. The residual ``x`` at that position is the sum of what the
embedding and every attention and MLP block wrote (:mod:`rmlib.lens.blocks`). An RMSNorm is ``g * x / rms(x)``: with
its scale ``1 / rms(x)`` held at the clean run's value it is linear too, so the reward is exactly the sum of each
block's *direct* contribution ``w . (g * c / rms(x))`` (plus the head's bias). That split is an attribution, not a
cause: a block's output also changes what later blocks compute, which only an intervention shows
(:mod:`rmlib.lens.patching`).

The **reward lens** applies the head, through the final norm, to the residual after the embedding and after each
layer: ``frozen`` holds the clean scale (so its last value is the reward and its steps are the layers' direct
contributions), ``renormed`` lets the norm rescale each partial stream, as the logit lens does.

For an LM (an implicit reward) the readout is the unembedding rows of candidate tokens at the last prompt position:
one pass gives the lens of a whole lexicon, or of the whole vocabulary. For an RM each answer is its own conversation:
they run as one padded batch (:func:`batch`), not through the sweep engine's shared-prefix cache
(:mod:`rmlib.engine.kernels`), because the hooks must see every block at every position (patching replaces them all)
and a cached prefix would hide the prefix's blocks from the record; the prefix is identical across a batch's
answers, so this costs the prefix's forward once per answer, which is small for the lexicons and RMs here. Gemma-2's final logit soft-cap
(``tanh(z / c) * c``) is not linear: there the parts sum to the logit before the cap (``Decomposition.softcap``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from rmlib.lens.blocks import LensError, final_norm, norm_eps, norm_gain, run_with, writers

__all__ = ["Readout", "Decomposition", "rm_readout", "lm_readout", "batch", "decompose"]


@dataclass(frozen=True)
class Readout:
    """A linear map from the final norm's output to K rewards: ``weight`` [K, H], ``bias`` [K] (float32), a label per
    row, the reward kind (``rm_score`` or ``lm_logit``) and the logit soft-cap that follows it (None: none)."""

    weight: torch.Tensor
    bias: torch.Tensor
    labels: tuple
    kind: str
    softcap: float | None = None


def rm_readout(model) -> Readout:
    """An explicit RM's scalar head (``score``, column 0: the ``logits0`` reader)."""
    head = getattr(model, "score", None)
    if not isinstance(head, torch.nn.Linear):
        raise LensError(f"{type(model).__name__} has no linear `score` head: the lens reads a sequence-"
                        "classification RM's column 0 (native gated heads such as ArmoRM's are not linear)")
    weight = head.weight[:1].detach().float()
    bias = head.bias[:1].detach().float() if head.bias is not None else torch.zeros(1, device=weight.device)
    return Readout(weight, bias, ("score",), "rm_score")


def lm_readout(model, token_ids, labels=None) -> Readout:
    """An LM's unembedding rows of ``token_ids`` (each row: that token's logit)."""
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if head is None:
        raise LensError(f"{type(model).__name__} has no output embedding: load the model with head='lm'")
    ids = torch.as_tensor(list(token_ids), device=head.weight.device, dtype=torch.long)
    if ids.numel() == 0 or int(ids.min()) < 0 or int(ids.max()) >= head.weight.shape[0]:
        raise LensError(f"token ids must be in [0, {head.weight.shape[0]}), got {len(ids)} ids")
    bias = head.bias[ids].detach().float() if getattr(head, "bias", None) is not None else \
        torch.zeros(len(ids), device=ids.device)
    cap = getattr(model.config.get_text_config(), "final_logit_softcapping", None)
    return Readout(head.weight[ids].detach().float(), bias, tuple(labels if labels is not None else token_ids),
                   "lm_logit", float(cap) if cap else None)


def batch(sequences, pad_id: int, device="cpu") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Right-padded ``(ids [B, T], attention mask, last real position per row)``: a causal model's states before
    the padding are those of the unpadded row."""
    sequences = [list(s) for s in sequences]
    if not sequences or any(len(s) == 0 for s in sequences):
        raise LensError("give at least one non-empty sequence of token ids")
    width = max(map(len, sequences))
    ids = torch.full((len(sequences), width), int(pad_id), dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, s in enumerate(sequences):
        ids[i, :len(s)], mask[i, :len(s)] = torch.as_tensor(s), 1
    return ids.to(device), mask.to(device), torch.as_tensor([len(s) - 1 for s in sequences], device=device)


@dataclass
class Decomposition:
    """The direct contribution of each block at each row's read position. ``parts`` [B, C, K] (C components in
    :func:`rmlib.lens.blocks.writers` order, K readout rows), ``bias`` [K], ``model_score`` [B, K] (the model's own
    output there, after any soft-cap), ``lens`` and ``lens_renormed`` [B, L + 1, K] (after the embedding and each
    layer). ``parts.sum(1) + bias`` is the reward with the clean norm scale: the model's score up to rounding."""

    components: list
    layers: list  # each component's layer (-1: the embedding)
    parts: np.ndarray
    bias: np.ndarray
    model_score: np.ndarray
    lens: np.ndarray
    lens_renormed: np.ndarray
    labels: tuple
    kind: str
    softcap: float | None = None

    @property
    def total(self) -> np.ndarray:
        """[B, K]: the sum of the parts and the bias (before any soft-cap)."""
        return self.parts.sum(1) + self.bias

    def frame(self, rows=None) -> pd.DataFrame:
        """Long table: row, label, component, layer, kind, contribution (``rows``: a label per row; default 0..B-1)."""
        B, C, K = self.parts.shape
        rows = list(range(B)) if rows is None else list(rows)
        return pd.DataFrame({
            "row": np.repeat(rows, C * K), "component": np.tile(np.repeat(self.components, K), B),
            "layer": np.tile(np.repeat(self.layers, K), B), "label": np.tile(list(self.labels), B * C),
            "contribution": self.parts.reshape(-1)}).assign(
                kind=lambda d: d["component"].str.split(".").str[-1])


def _at(t: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    return t[torch.arange(t.shape[0], device=t.device), positions]


def _model_score(logits: torch.Tensor, positions, readout: Readout, ids_of_rows) -> torch.Tensor:
    if readout.kind == "rm_score":
        return logits[:, :1]
    cols = torch.as_tensor(ids_of_rows, device=logits.device)
    return _at(logits, positions)[:, cols]


def decompose(model, ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor, readout: Readout,
              token_ids=None) -> Decomposition:
    """Split ``readout`` at ``positions`` into each block's direct contribution (one forward pass). ``token_ids``:
    for an LM readout, the vocabulary ids of its rows (to read the model's own logits beside the parts)."""
    ws = writers(model)
    seen, logits = run_with(model, ids, mask, record=[w.module for w in ws], at=positions)
    comps = torch.stack([seen[w.module] for w in ws], 1)                         # [B, C, H]
    x = seen["final"]                                                            # [B, H]
    norm = final_norm(model)
    scale = torch.rsqrt(x.pow(2).mean(-1) + norm_eps(norm))                      # [B]: the clean run's scale
    gain = norm_gain(norm, x.shape[-1], x.device)
    W, b = readout.weight.to(x.device), readout.bias.to(x.device)
    parts = torch.einsum("bch,kh->bck", comps * gain * scale[:, None, None], W)
    per_layer = torch.cat([comps[:, :1], comps[:, 1:].reshape(len(x), -1, 2, x.shape[-1]).sum(2)], 1)
    resid = per_layer.cumsum(1)                                                  # [B, L + 1, H]
    lens = torch.einsum("blh,kh->blk", resid * gain * scale[:, None, None], W) + b
    with torch.no_grad():
        renormed = norm(resid.to(next(norm.parameters()).dtype)).float()
    if readout.kind == "lm_logit" and token_ids is None:
        raise LensError("an LM readout needs token_ids: the vocabulary ids of its rows")
    return Decomposition(
        [w.name for w in ws], [w.layer for w in ws], parts.cpu().numpy(), b.cpu().numpy(),
        _model_score(logits, positions, readout, token_ids).cpu().numpy(), lens.cpu().numpy(),
        (torch.einsum("blh,kh->blk", renormed, W) + b).cpu().numpy(), readout.labels, readout.kind,
        readout.softcap)
