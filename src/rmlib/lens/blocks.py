"""Where a decoder's residual stream is written, and hooks that read or replace what each block writes.

Why plain PyTorch hooks, not a library: TransformerLens (4.3) maps causal LMs and T5 onto its own modules and has no
sequence-classification head, so an RM's ``score`` would have to be re-attached by hand and its weights converted;
nnsight (0.8) wraps any module and would do, but it adds a tracing layer (and a dependency) for what is here five
forward hooks on the Hugging Face modules the models already are. The lens needs only to read each block's output and
to replace it, on Llama, Gemma-2/3 and Qwen-2 decoders (the registry's families), so it hooks them directly.

A decoder writes its residual stream in ``2 L + 1`` places: the (scaled) token embedding, then per layer the attention
block's output and the MLP block's output, each added to the stream. In Llama and Qwen-2 those are the outputs of
``self_attn`` and ``mlp``; Gemma-2/3 norm each before adding it (``post_attention_layernorm``,
``post_feedforward_layernorm``), so there the norms' outputs are what is added. :func:`writers` names these modules
in order; :func:`run_with` runs the model with hooks that record each writer's output or replace it.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass

import torch

from rmlib import costs
from rmlib.errors import RmlibError

__all__ = ["LensError", "Writer", "writers", "component_names", "final_norm", "norm_gain", "norm_eps", "run_with",
           "layer_modules"]


class LensError(RmlibError, ValueError):
    """A model or input the lens cannot decompose (the message says why and what it takes)."""


@dataclass(frozen=True)
class Writer:
    """One module whose output is added to the residual stream: its name (``embed``, ``L3.attn``, ``L3.mlp``), the
    layer it belongs to (-1 for the embedding) and its kind (embed, attn, mlp)."""

    name: str
    layer: int
    kind: str
    module: torch.nn.Module


def _backbone(model):
    body = getattr(model, "base_model", None)
    if body is None or not hasattr(body, "layers") or not hasattr(body, "embed_tokens") or not hasattr(body, "norm"):
        raise LensError(f"{type(model).__name__} is not a decoder the lens knows (it needs embed_tokens, layers and a "
                        "final norm, as Llama, Gemma-2/3 and Qwen-2 have)")
    return body


def layer_modules(model) -> list[torch.nn.Module]:
    """The decoder layers, bottom to top."""
    return list(_backbone(model).layers)


def writers(model) -> list[Writer]:
    """The embedding and, per layer, the attention and MLP blocks' outputs as they are added to the stream."""
    body = _backbone(model)
    out = [Writer("embed", -1, "embed", body.embed_tokens)]
    for i, layer in enumerate(body.layers):
        sandwich = hasattr(layer, "pre_feedforward_layernorm")  # Gemma: each block normed before it is added
        attn = layer.post_attention_layernorm if sandwich else layer.self_attn
        mlp = layer.post_feedforward_layernorm if sandwich else layer.mlp
        out += [Writer(f"L{i}.attn", i, "attn", attn), Writer(f"L{i}.mlp", i, "mlp", mlp)]
    return out


def component_names(model) -> list[str]:
    return [w.name for w in writers(model)]


def final_norm(model) -> torch.nn.Module:
    return _backbone(model).norm


def norm_eps(norm) -> float:
    eps = getattr(norm, "variance_epsilon", getattr(norm, "eps", None))
    if eps is None or type(norm).__name__.endswith("LayerNorm"):
        raise LensError(f"the final norm {type(norm).__name__} is not an RMSNorm with an eps: the lens freezes an "
                        "RMSNorm's scale only")
    return float(eps)


def norm_gain(norm, hidden: int, device) -> torch.Tensor:
    """The RMSNorm's elementwise gain ``g`` (``norm(x) = g * x / rms_eps(x)``), read off the module itself so that
    Llama's ``w`` and Gemma's ``1 + w`` need no case: ``norm(1) * sqrt(1 + eps)``."""
    ones = torch.ones(1, hidden, device=device, dtype=next(norm.parameters()).dtype)
    with torch.no_grad():
        return norm(ones)[0].float() * math.sqrt(1.0 + norm_eps(norm))


def _first(output):
    return output[0] if isinstance(output, tuple) else output


def _replaced(output, new):
    return (new, *output[1:]) if isinstance(output, tuple) else new


@contextmanager
def _hooks(pairs):
    handles = [module.register_forward_hook(fn) for module, fn in pairs]
    try:
        yield
    finally:
        for h in handles:
            h.remove()


@costs.phase("lens")
def run_with(model, ids: torch.Tensor, mask: torch.Tensor, *, record: list[torch.nn.Module] = (),
             replace: dict | None = None, final_input: bool = True,
             at: torch.Tensor | None = None) -> tuple[dict, torch.Tensor]:
    """Run ``model`` on ``ids`` and return ({module: its output, float32, [B, T, H]} for each module in ``record``
    plus ``"final"``: the final norm's input; the model's output logits). ``replace`` maps a module to a function
    ``(output [B, T, H]) -> new output``: the run goes on from the new one (a patch, an ablation). ``at`` (one
    position per row) keeps only those positions of what is recorded ([B, H]): a lexicon's outputs at every position
    of every block would not fit in memory for a 0.5B model. Its time and FLOPs are the book's cost table's "lens"
    phase (:mod:`rmlib.costs`)."""
    seen: dict = {}
    rows = torch.arange(len(ids), device=ids.device)

    def keep(t):
        t = t.detach()
        return (t if at is None else t[rows, at.to(t.device)]).float()

    def recorder(key):
        def hook(module, args, output):
            seen[key] = keep(_first(output))
        return hook

    def replacer(fn):
        def hook(module, args, output):
            return _replaced(output, fn(_first(output)).to(_first(output).dtype))
        return hook

    def final_hook(module, args):
        seen["final"] = keep(args[0])

    pairs = [(m, replacer(fn)) for m, fn in (replace or {}).items()] + [(m, recorder(m)) for m in record]
    norm = final_norm(model)
    handle = norm.register_forward_pre_hook(final_hook) if final_input else None
    try:
        with _hooks(pairs), torch.no_grad():
            logits = model(input_ids=ids, attention_mask=mask).logits
    finally:
        if handle is not None:
            handle.remove()
    return seen, logits.float()
