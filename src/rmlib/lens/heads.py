"""The attention block's direct contribution split further, head by head.

An attention block's output is ``o_proj(concat of the heads' outputs)``, so head ``h`` wrote ``W_O[:, h] z_h`` (the
output projection has no bias in the Llama, Qwen-2 and Gemma families the lens reads). Gemma norms the block's output
before adding it (``post_attention_layernorm``): with that norm's scale held at the run's own value the split stays
exact, each head's part scaled as the whole block's was. Each head's part then goes through the final norm and the
readout as the block's does (:mod:`rmlib.lens.attribution`), so a layer's heads sum to its attention block's part.
"""
from __future__ import annotations

import numpy as np
import torch

from rmlib.lens.attribution import Readout
from rmlib.lens.blocks import LensError, final_norm, layer_modules, norm_eps, norm_gain, run_with

__all__ = ["head_parts"]


def _at(t: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    return t[torch.arange(t.shape[0], device=t.device), positions]


def _record_inputs(modules):
    seen, handles = {}, []
    for m in modules:
        def hook(module, args, key=m):
            seen[key] = args[0].detach().float()
        handles.append(m.register_forward_pre_hook(hook))
    return seen, handles


def head_parts(model, ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor, readout: Readout) -> np.ndarray:
    """[B, L, n_heads, K]: each attention head's direct contribution to each readout row at the read positions."""
    layers = layer_modules(model)
    o_projs = [getattr(layer.self_attn, "o_proj", None) for layer in layers]
    if any(o is None or o.bias is not None for o in o_projs):
        raise LensError("the per-head split needs an attention output projection o_proj without a bias")
    posts = [layer.post_attention_layernorm if hasattr(layer, "pre_feedforward_layernorm") else None
             for layer in layers]
    seen_in, handles = _record_inputs([*o_projs, *[p for p in posts if p is not None]])
    try:
        seen, _ = run_with(model, ids, mask, at=positions)
    finally:
        for h in handles:
            h.remove()
    norm = final_norm(model)
    x = seen["final"]
    scale = torch.rsqrt(x.pow(2).mean(-1) + norm_eps(norm))
    gain = norm_gain(norm, x.shape[-1], x.device)
    W = readout.weight.to(x.device)
    out = []
    for o_proj, post in zip(o_projs, posts):
        z = _at(seen_in[o_proj], positions)                                       # [B, n_heads * d]
        n_heads = model.config.get_text_config().num_attention_heads
        Wo = o_proj.weight.detach().float()                                       # [H, n_heads * d]
        parts = torch.einsum("bnd,hnd->bnh", z.view(len(z), n_heads, -1), Wo.view(Wo.shape[0], n_heads, -1))
        if post is not None:  # Gemma: the block's own norm, its scale frozen at the run's value
            a = _at(seen_in[post], positions)
            parts = parts * norm_gain(post, a.shape[-1], a.device) * torch.rsqrt(
                a.pow(2).mean(-1) + norm_eps(post))[:, None, None]
        out.append(torch.einsum("bnh,kh->bnk", parts * gain * scale[:, None, None], W))
    return torch.stack(out, 1).cpu().numpy()
