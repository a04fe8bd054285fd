"""A preference planted in one known place of a model: how the lens and patching are tested, and the course's lab.

:func:`plant_neuron` rewrites one MLP neuron of one layer so that it fires on a direction of the residual stream
(``read``, e.g. a word's embedding) and then writes another (``write``, e.g. the direction the reward head reads
through the final norm, :func:`readout_direction`). With ``read`` a word's embedding and ``write`` the readout
direction, that word's reward rises, and the place that made it rise is known: a test can ask whether the lens and
patching find it. Chaining two neurons (the first writes a direction the head ignores, the second reads it and writes
the readout direction) plants a block whose direct attribution is near zero but whose patching effect is the gap: an
attribution an intervention refutes. Random tiny models only: the edit is in place.
"""
from __future__ import annotations

import torch

from rmlib.lens.attribution import Readout
from rmlib.lens.blocks import LensError, final_norm, layer_modules, norm_gain

__all__ = ["token_direction", "readout_direction", "orthogonal_direction", "plant_neuron"]


def token_direction(model, token_id: int) -> torch.Tensor:
    """The unit vector of a token's input embedding."""
    row = model.get_input_embeddings().weight[int(token_id)].detach().float()
    return row / row.norm()


def readout_direction(model, readout: Readout, row: int = 0) -> torch.Tensor:
    """The unit vector a block must write for readout row ``row`` to rise the most: ``w * g`` (the head's row times
    the final norm's gain)."""
    norm = final_norm(model)
    v = readout.weight[row] * norm_gain(norm, readout.weight.shape[1], readout.weight.device)
    return v / v.norm()


def orthogonal_direction(*directions: torch.Tensor, seed: int = 0) -> torch.Tensor:
    """A unit vector orthogonal to each of ``directions`` (a seeded random vector, the others projected out)."""
    g = torch.Generator().manual_seed(seed)
    v = torch.randn(directions[0].shape[0], generator=g)
    basis, _ = torch.linalg.qr(torch.stack([d.float().cpu() for d in directions], 1))
    v = v - basis @ (basis.T @ v)
    return v / v.norm()


def plant_neuron(model, layer: int, read: torch.Tensor, write: torch.Tensor, *, sharpness: float = 6.0,
                 strength: float = 0.05, neuron: int = 0) -> None:
    """Rewrite neuron ``neuron`` of layer ``layer``'s MLP in place: its gate and up rows read ``sharpness * read``
    (a unit vector), its down column writes ``strength * write``. The neuron then fires where the stream points
    along ``read`` and adds ``write`` to the stream there."""
    layers = layer_modules(model)
    if not 0 <= layer < len(layers):
        raise LensError(f"layer {layer} is not in [0, {len(layers)})")
    mlp = layers[layer].mlp
    if not all(hasattr(mlp, n) for n in ("gate_proj", "up_proj", "down_proj")):
        raise LensError(f"{type(mlp).__name__} is not a gated MLP (gate_proj, up_proj, down_proj)")
    with torch.no_grad():
        r = (read / read.norm()).to(mlp.gate_proj.weight)
        mlp.gate_proj.weight[neuron] = sharpness * r
        mlp.up_proj.weight[neuron] = sharpness * r
        mlp.down_proj.weight[:, neuron] = strength * write.to(mlp.down_proj.weight)
