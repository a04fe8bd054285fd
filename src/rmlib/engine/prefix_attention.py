"""Attention that lets a batch of short continuations share one prompt prefix.

An exhaustive sweep scores ~10^5 sequences that differ only in the last few
positions. Running the prefix once and attending to its cached keys/values from
every candidate (without copying them per candidate) turns the sweep from
O(V * (P+S)) into O(P + V * S) token-forwards. The softmax is taken jointly over
prefix and new positions, so the result is exact, not an approximation.
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
    kp, vp = _active["kv"][module.layer_idx]  # [kvh, P, D] each
    B, H, S, D = query.shape
    kvh, P = kp.shape[0], kp.shape[1]
    if sliding_window is not None and P + S > sliding_window:
        raise ValueError(f"prompt+answer length {P + S} exceeds the sliding window {sliding_window}; use method='full'")
    g = H // kvh
    scale = scaling if scaling is not None else D ** -0.5
    q = query.reshape(B, kvh, g, S, D)
    # Scores against the shared prefix: one matmul per kv-head over all candidates' query rows.
    q_rows = q.permute(1, 0, 2, 3, 4).reshape(kvh, B * g * S, D)
    s_prefix = torch.bmm(q_rows, kp.transpose(1, 2)).view(kvh, B, g, S, P).permute(1, 0, 2, 3, 4)
    s_new = torch.matmul(q, key.unsqueeze(2).transpose(-1, -2))  # [B, kvh, g, S, S]
    scores = torch.cat([s_prefix, s_new], dim=-1) * scale
    if softcap is not None:
        scores = torch.tanh(scores / softcap) * softcap
    causal = torch.ones(S, S, dtype=torch.bool, device=query.device).triu(1)
    scores[..., P:] = scores[..., P:].masked_fill(causal, float("-inf"))
    probs = torch.softmax(scores, dim=-1, dtype=torch.float32).to(query.dtype)
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
def shared_prefix(model, kv):
    """Route the model's attention through the shared prefix `kv` for the duration."""
    global _active
    cfg = model.config
    previous = cfg._attn_implementation
    _active = {"kv": kv}
    try:
        model.set_attn_implementation(NAME)
        yield
    finally:
        _active = None
        model.set_attn_implementation(previous)
