"""Score readers: how a reward model's scalar is read from its backbone's hidden states, one named reader a model.

Why: the sweep engine runs a model's *backbone* itself (once over the prompt, then over every candidate against the
cached keys/values, :mod:`rmlib.engine.kernels`), so it must know what the head does with the hidden states. A plain
``*ForSequenceClassification`` RM reads ``score(h_last)[0]``. ArmoRM and QRM also read the hidden state at a
*gating token* inside the prompt (the end of the user's turn), and URM's own reward is a gated mean of its outputs.
Each is one :class:`Reader` here; the native heads themselves are in :mod:`rmlib.models.native_rms`.

A reader is bound to a loaded model as a :class:`RewardHead`: ``gate_index(ids)`` is the position whose hidden state
the head needs (None when it needs none), ``score(last, gate)`` maps the hidden states at the last real token and at
the gate to one float score per row. The registry names each paper RM's default reader (``score:``) and any others
it offers (``score_readers:``); :class:`rmlib.models.LoadOptions` ``score_reader`` picks another one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import torch

from rmlib.registry import ModelError, ModelSpec
from rmlib.registry import registry

__all__ = ["READERS", "Reader", "RewardHead", "reader_name", "reward_head", "find_last", "paper_last_index"]


def find_last(ids: Sequence[int], pattern: Sequence[int]) -> int | None:
    """The start of the last occurrence of ``pattern`` in ``ids`` (None if it does not occur)."""
    ids, pattern = list(ids), list(pattern)
    n = len(pattern)
    for j in range(len(ids) - n, -1, -1):
        if ids[j:j + n] == pattern:
            return j
    return None


def paper_last_index(input_ids: torch.Tensor, pad_id: int | None) -> torch.Tensor:
    """Where the papers' pipeline read each row's score: the token before the row's *first* pad token (the last
    position when a row has none, or when there is no pad token). So read the authors' own heads (ArmoRM, QRM, URM)
    and the sequence-classification heads of the transformers the paper pinned (later versions read the last
    non-pad token). The two differ only when a conversation holds the pad token itself, as the conversation whose
    answer is the pad token does: paper mode reproduces that quirk, id-exact reads the real last token."""
    width = input_ids.shape[-1]
    if pad_id is None:
        return torch.full((input_ids.shape[0],), width - 1, device=input_ids.device)
    return (torch.eq(input_ids, pad_id).int().argmax(-1) - 1) % width


@dataclass(frozen=True)
class RewardHead:
    """A reader bound to one model: what the kernels call."""

    reader: str
    score_fn: Callable  # (last [B, H], gate [B, H] | None) -> [B] float32
    pattern: tuple[int, ...] | None = None  # token ids whose last occurrence starts at the gating position

    @property
    def needs_gate(self) -> bool:
        return self.pattern is not None

    def gate_index(self, ids: Sequence[int]) -> int | None:
        """The gating position in a whole conversation (prefix + answer + suffix ids); None if the head has none.
        A conversation without the pattern cannot be scored: the model's own code raises there too."""
        if self.pattern is None:
            return None
        j = find_last(ids, self.pattern)
        if j is None:
            raise ModelError(f"the {self.reader} head reads the hidden state at its gating tokens {list(self.pattern)}"
                             " (the end of the user's turn), and this conversation has none")
        return j

    def gate_indices(self, prefix_ids: Sequence[int], seqs) -> list[int]:
        """:meth:`gate_index` of each conversation ``prefix_ids + seq``, with the prefix searched once: per row only
        the windows that reach into the row (a sweep asks this of every token of the vocabulary)."""
        prefix_ids = list(prefix_ids)
        P, overlap = len(prefix_ids), len(self.pattern) - 1
        in_prefix = find_last(prefix_ids, self.pattern) if P else None
        edge = prefix_ids[max(0, P - overlap):]
        out = []
        for seq in seqs:
            j = find_last([*edge, *seq], self.pattern)
            if j is None and in_prefix is None:
                self.gate_index([*prefix_ids, *seq])  # raises the reader's own error
            out.append(in_prefix if j is None else P - len(edge) + j)
        return out

    def score(self, last: torch.Tensor, gate: torch.Tensor | None = None) -> torch.Tensor:
        if self.needs_gate and gate is None:
            raise ModelError(f"the {self.reader} head needs the hidden state at its gating position")
        return self.score_fn(last, gate).float()


@dataclass(frozen=True)
class Reader:
    """A way to read a score. ``native``: the architectures (config.json ``architectures``) it belongs to, or None
    for any sequence-classification head. ``bind(model, tokenizer) -> RewardHead``."""

    name: str
    what: str
    bind: Callable
    native: tuple[str, ...] | None = None


def _logits0(model, tokenizer) -> RewardHead:
    head = getattr(model, "score", None)
    if head is None:
        raise ModelError(f"{type(model).__name__} has no `score` head to read logits[:, 0] from")
    # the head's own dtype and device: a native head is kept in float32 (and on the final norm's GPU) under a bf16
    # or fp16 backbone, as URM's is; before, URM in its paper dtype failed ("expected m1 and m2 to have the same dtype")
    return RewardHead("logits0", lambda last, gate: head(last.to(head.weight.device, head.weight.dtype))[:, 0])


def _column0(model, tokenizer) -> RewardHead:
    return RewardHead("urm_column0", _logits0(model, tokenizer).score_fn)


def _native(name: str):
    def bind(model, tokenizer) -> RewardHead:
        fn = getattr(model, "reward_from_hidden", None)
        if fn is None:
            raise ModelError(f"the {name} reader needs rmlib's native head, not {type(model).__name__}")
        pattern = model.gate_pattern(tokenizer)
        model.rmlib_gate_pattern = pattern  # the paper pipeline's forward finds the gate as the authors' code does
        return RewardHead(name, fn, pattern)
    return bind


def _urm_gated(model, tokenizer) -> RewardHead:
    fn = getattr(model, "gated_reward", None)
    if fn is None:
        raise ModelError(f"urm_gated needs rmlib's native URM head (score and weights), not {type(model).__name__}")
    return RewardHead("urm_gated", lambda last, gate: fn(last))


READERS: dict[str, Reader] = {r.name: r for r in (
    Reader("logits0", "logits[:, 0] of a sequence-classification head at the last real token", _logits0),
    Reader("urm_column0", "column 0 of URM's 10-output head at the last real token (what the paper read)", _column0),
    Reader("urm_gated", "URM's own reward: its 5 attribute means weighted by its weights network "
                        "(native_rms.urm_reward)", _urm_gated, ("LlamaForSequenceClassificationWithNormal_Weights",)),
    Reader("armo_gated", "ArmoRM's score: 19 objective rewards, transformed and mixed by a gating network on the "
                         "hidden state at the end of the user's turn", _native("armo_gated"),
           ("LlamaForRewardModelWithGating",)),
    Reader("qrm_expectation", "QRM's score: the expectation of its gated reward quantiles", _native("qrm_expectation"),
           ("LlamaForRewardModelWithGating", "Gemma2ForRewardModelWithGating")),
)}


def reader_name(spec: ModelSpec, asked: str | None) -> str | None:
    """The reader a load uses: ``asked`` when the model offers it, else the registry's default for a registered
    model; None for any other model (an unknown hub id, a saved folder), whose loaded class then decides (a native
    head's own reward, else logits0)."""
    if asked is not None and asked not in READERS:
        raise ModelError(f"unknown score reader {asked!r}; rmlib's readers are {sorted(READERS)}")
    if spec.id not in registry():
        return asked
    offered = (spec.score, *spec.score_readers)
    if asked is not None and asked not in offered:
        raise ModelError(f"{spec.id} offers the score readers {list(offered)}, not {asked!r}")
    return asked or spec.score


def reward_head(model, tokenizer, reader: str) -> RewardHead:
    """Bind ``reader`` to a loaded model (its head modules and, for gated heads, its tokenizer's gating tokens)."""
    if reader not in READERS:
        raise ModelError(f"unknown score reader {reader!r}; rmlib's readers are {sorted(READERS)}")
    return READERS[reader].bind(model, tokenizer)
