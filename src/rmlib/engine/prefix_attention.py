"""Attention that lets a batch of short continuations share one prompt prefix.

An exhaustive sweep scores ~10^5 sequences that differ only in the last few
positions. Running the prefix once and attending to its cached keys/values from
every candidate (without copying them per candidate) turns the sweep from
O(V * (P+S)) into O(P + V * S) token-forwards. The softmax is taken jointly over
prefix and new positions, so the result is exact, not an approximation.

The rows of a batch may also each continue a prefix of their own (right-padded to one length, with the padding
masked): many prompts that share openings run their different continuations in one forward
(:mod:`rmlib.engine.prefix_tree`).
"""
from __future__ import annotations

import contextlib

import torch
from transformers import AttentionInterface

NAME = "rmlib_shared_prefix"
_active: dict | None = None


def _shared_prefix_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0,
                             softcap=None, sliding_window=None, s_aux=None, **kwargs):
    if _active is None:
        raise RuntimeError("rmlib shared-prefix attention called outside rmlib.prefix_attention.shared_prefix()")
    if s_aux is not None:
        raise NotImplementedError("attention sinks are not supported by the shared-prefix sweep; use method='full'")
    kp, vp = _active["kv"][module.layer_idx]  # [kvh, P, D] each, or [B, kvh, P, D] (one prefix per row)
    per_row = kp.dim() == 4
    B, H, S, D = query.shape
    kvh, P = kp.shape[-3], kp.shape[-2]
    if sliding_window is not None and P + S > sliding_window:
        raise ValueError(f"prompt+answer length {P + S} exceeds the sliding window {sliding_window}; use method='full'")
    g = H // kvh
    scale = scaling if scaling is not None else D ** -0.5
    q = query.reshape(B, kvh, g, S, D)
    if per_row:  # each row against its own (right-padded) prefix
        s_prefix = torch.matmul(q, kp.unsqueeze(2).transpose(-1, -2))  # [B, kvh, g, S, P]
    else:  # against the shared prefix: one matmul per kv-head over all candidates' query rows
        q_rows = q.permute(1, 0, 2, 3, 4).reshape(kvh, B * g * S, D)
        s_prefix = torch.bmm(q_rows, kp.transpose(1, 2)).view(kvh, B, g, S, P).permute(1, 0, 2, 3, 4)
    s_new = torch.matmul(q, key.unsqueeze(2).transpose(-1, -2))  # [B, kvh, g, S, S]
    scores = torch.cat([s_prefix, s_new], dim=-1) * scale
    if softcap is not None:
        scores = torch.tanh(scores / softcap) * softcap
    causal = torch.ones(S, S, dtype=torch.bool, device=query.device).triu(1)
    scores[..., P:] = scores[..., P:].masked_fill(causal, float("-inf"))
    if per_row:  # a row's prefix padding is never attended to
        pad = torch.arange(P, device=query.device)[None] >= _active["lengths"].to(query.device)[:, None]  # [B, P]
        scores[..., :P] = scores[..., :P].masked_fill(pad[:, None, None, None], float("-inf"))
    probs = torch.softmax(scores, dim=-1, dtype=torch.float32).to(query.dtype)
    if per_row:
        out = torch.matmul(probs[..., :P], vp.unsqueeze(2))
    else:
        p_rows = probs[..., :P].permute(1, 0, 2, 3, 4).reshape(kvh, B * g * S, P)
        out = torch.bmm(p_rows, vp).view(kvh, B, g, S, D).permute(1, 0, 2, 3, 4)
    out = out + torch.matmul(probs[..., P:], value.unsqueeze(2))
    return out.reshape(B, H, S, D).transpose(1, 2).contiguous(), None


AttentionInterface.register(NAME, _shared_prefix_attention)


def cache_to_kv(cache) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Per-layer (keys, values) of a batch-1 prefix cache, as [kv_heads, P, head_dim]."""
    layers = getattr(cache, "layers", None)
    if layers is not None:
        return [(layer.keys[0], layer.values[0]) for layer in layers]
    return [(k[0], v[0]) for k, v in cache]


@contextlib.contextmanager
def shared_prefix(model, kv, lengths=None):
    """Route the model's attention through the shared prefix `kv` for the duration: per layer (keys, values) as
    [kv_heads, P, head_dim], one prefix for every row; or, with ``lengths`` (a [B] tensor), as [B, kv_heads, P,
    head_dim], row b's own prefix in its first lengths[b] positions (the rest is padding, never attended to)."""
    global _active
    cfg = model.config
    previous = cfg._attn_implementation
    if (lengths is not None) != (kv[0][0].dim() == 4):
        raise ValueError("per-row prefixes ([B, kv_heads, P, head_dim]) need their lengths, and only they")
    _active = {"kv": kv, "lengths": lengths}
    try:
        model.set_attn_implementation(NAME)
        yield
    finally:
        _active = None
        model.set_attn_implementation(previous)
