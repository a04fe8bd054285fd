"""The scoring kernels: how a batch of candidate answers becomes scores, exactly.

* shared prefix (:func:`rm_scores_shared`): the templated prompt runs once; every candidate attends to its cached
  keys/values through :mod:`rmlib.engine.prefix_attention` (exact, not an approximation), optionally through a graph
  compiled for one batch shape (:func:`rm_scores_shared_compiled`);
* full (:func:`rm_scores_full`): plain forwards of prefix + candidate, the reference path and the one for models
  with their own code;
* paper (:func:`rm_scores_paper`): the original pipeline (decode, re-render, re-tokenise, pad), double BOS included,
  read where it read: the token before each row's first pad.

LM log-probs of one token need no kernel of their own: one forward of the prompt gives every next token's logit
(:func:`prefix_kv`); those of multi-token answers come from :func:`lm_logprobs_shared` against the same prefix.
"""
from __future__ import annotations

import contextlib

import torch

from rmlib.engine.checks import SweepError
from rmlib.engine.prefix_attention import cache_to_kv, shared_prefix
from rmlib.models import LoadedModel
from rmlib.models.reward_heads import paper_last_index
from rmlib.models.templates import paper_text

__all__ = ["backbone_and_head", "supports_shared_prefix", "prefix_kv", "prefix_kv_many", "right_pad", "rm_scores_shared",
           "rm_scores_shared_compiled", "rm_scores_full", "rm_scores_paper", "lm_logprobs_shared", "gate_hidden"]


def backbone_and_head(lm: LoadedModel):
    """(the transformer backbone, the bound score reader :class:`rmlib.models.reward_heads.RewardHead`) of an RM.

    Every RM the engine scores is run this way, its own head included: a plain sequence-classification head reads
    ``score(h_last)[0]``; the native heads of ArmoRM, QRM and URM read what their own code reads (a gating token's
    hidden state too), from rmlib's implementation of them (:mod:`rmlib.models.native_rms`)."""
    return lm.model.base_model, lm.reward_head


def supports_shared_prefix(lm: LoadedModel, total_len: int = 0) -> bool:
    """The fast path needs transformers' own attention modules (they dispatch through AttentionInterface)
    and a conversation shorter than any sliding attention window."""
    model = lm.model
    window = getattr(model.config, "sliding_window", None)
    if window and total_len > window:
        return False
    backbone = model.base_model if lm.head == "rm" else model
    if not type(backbone).__module__.startswith("transformers.models."):
        return False
    attn = [m for m in model.modules() if hasattr(m, "layer_idx") and hasattr(m, "o_proj")]
    return bool(attn)


@torch.inference_mode()
def prefix_kv(lm: LoadedModel, prefix_ids):
    ids = torch.tensor([list(prefix_ids)], device=lm.device)
    base = lm.model.base_model if lm.head == "rm" else lm.model
    out = base(input_ids=ids, use_cache=True)
    return cache_to_kv(out.cache), out


@torch.inference_mode()
def prefix_kv_many(lm: LoadedModel, prefixes, openings=None, *, last_logprobs: bool = True
                   ) -> list[tuple[list, torch.Tensor | None]]:
    """:func:`prefix_kv` of many prompts in one forward: per prompt, its (keys, values) per layer as
    [kv_heads, P_i, head_dim] and, for an LM, the log-softmax of its next-token logits at its last position (None
    with ``last_logprobs=False``, when only the keys/values are wanted); for an RM, the prompt's hidden states
    [P_i, hidden] (a gated head reads one inside the prompt; None for rows that continue an opening).

    Why: a CPU forward of one ~90-token prompt leaves the matrix units mostly idle (profiled for #17: 1.4 CPU s a
    prompt for SmolLM2, nearly all in ``linear``); one forward of many prompts multiplies larger matrices, and only
    the last position of each prompt goes through the LM head (``logits_to_keep``), not all of them.
    Exact: the prompts are right-padded and the model is causal, so a real position never sees a padding position
    (no attention mask is needed, and none is passed); positions count from 0 as in :func:`prefix_kv`. Values agree
    with one forward per prompt up to float rounding of the larger matrix products (tests/integration/
    test_answers_batched.py holds them to 1e-6 in P(yes) in float32).

    ``openings`` (one per prompt, or None): the keys/values of an opening the prompt continues, as this function
    returned them; ``prefixes`` are then the tokens that follow each opening. Each row attends to its own opening
    through :func:`rmlib.engine.prefix_attention.shared_prefix` (exact: one softmax over opening and own positions;
    openings padded to one length, the padding masked) at positions counted on from the opening's length, and the
    keys/values returned are the whole prompt's, opening included. So an opening many prompts share runs once
    (:mod:`rmlib.engine.prefix_tree`)."""
    prefixes = [list(p) for p in prefixes]
    ids, lengths = right_pad(prefixes, 0, lm.device)
    last = lengths - 1
    extra, context = {}, contextlib.nullcontext()
    if openings is not None:
        starts = torch.tensor([kv[0][0].shape[1] for kv in openings], device=lm.device)
        extra["position_ids"] = starts[:, None] + torch.arange(ids.shape[1], device=lm.device)[None]
        context = shared_prefix(lm.model, _stack_openings(openings, int(starts.max())), starts)
    with context:
        if lm.head == "rm" or not last_logprobs:
            out = lm.model.base_model(input_ids=ids, use_cache=True, **extra)
            firsts = [None] * len(prefixes)
            if lm.head == "rm" and openings is None:  # an RM's prompt hidden states (a gated head reads one)
                firsts = [out.last_hidden_state[i, :n] for i, n in enumerate(lengths.tolist())]
        else:
            keep = torch.unique(last)  # sorted: the columns of the kept logits
            out = lm.model(input_ids=ids, use_cache=True, logits_to_keep=keep, **extra)
            col = torch.searchsorted(keep, last)
            logits = out.logits[torch.arange(len(prefixes), device=out.logits.device), col.to(out.logits.device)].float()
            firsts = list(torch.log_softmax(logits, dim=-1))
    cache = out.cache  # as in prefix_kv; with openings, the new positions only
    layers = getattr(cache, "layers", None)
    pairs = [(layer.keys, layer.values) for layer in layers] if layers is not None else list(cache)
    own = [[(k[i, :, :n], v[i, :, :n]) for k, v in pairs] for i, n in enumerate(lengths.tolist())]
    if openings is not None:
        own = [[(torch.cat([k0, k], 1), torch.cat([v0, v], 1)) for (k0, v0), (k, v) in zip(opening, kv)]
               for opening, kv in zip(openings, own)]
    return list(zip(own, firsts))


def _stack_openings(openings, width: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Per layer, the openings' keys and values as [rows, kv_heads, width, head_dim], right-padded with zeros."""
    stacked = []
    for layer in range(len(openings[0])):
        k0, v0 = openings[0][layer]
        keys = k0.new_zeros((len(openings), k0.shape[0], width, k0.shape[2]))
        values = v0.new_zeros((len(openings), v0.shape[0], width, v0.shape[2]))
        for i, kv in enumerate(openings):
            k, v = kv[layer]
            keys[i, :, :k.shape[1]] = k
            values[i, :, :v.shape[1]] = v
        stacked.append((keys, values))
    return stacked


def right_pad(seqs, pad_id: int, device):
    lengths = torch.tensor([len(s) for s in seqs], device=device)
    width = int(lengths.max())
    ids = torch.full((len(seqs), width), pad_id, dtype=torch.long, device=device)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.as_tensor(s, device=device)
    return ids, lengths


class _LastRowMLP(torch.nn.Module):
    """The last decoder layer's MLP, run on the last position only. Exact for that position (the MLP works
    position by position); the other positions get a zero MLP output, and their final hidden states are never read."""

    def __init__(self, mlp):
        super().__init__()
        self.inner = mlp

    def forward(self, x):
        out = torch.zeros_like(x)
        out[:, -1:] = self.inner(x[:, -1:])
        return out


@contextlib.contextmanager
def _last_row_mlp(backbone):
    """While scoring at the last position of equal-length rows: skip the last layer's MLP at the other positions
    (SmolLM2: ~1.7% of the FLOPs, Gemma-3-270M: ~2.6%)."""
    layers = getattr(backbone, "layers", None)
    layer = layers[-1] if layers is not None and len(layers) else None
    mlp = getattr(layer, "mlp", None)
    if not isinstance(mlp, torch.nn.Module) or isinstance(mlp, _LastRowMLP):
        yield
        return
    layer.mlp = _LastRowMLP(mlp)
    try:
        yield
    finally:
        layer.mlp = mlp


def gate_hidden(lm: LoadedModel, seqs, hidden, prefix_ids=(), prefix_hidden=None):
    """The hidden state at each row's gating position (None for a head that has none), found in the whole
    conversation (``prefix_ids`` + the row's ``seqs``) as the model's own code finds it: the last occurrence of the
    gating tokens. ``hidden`` are the rows' hidden states, ``prefix_hidden`` the prefix forward's [P, H], where the
    gate of a templated prompt lies. The prefix is searched once; per row only the windows that reach into the row."""
    head = lm.reward_head
    if not head.needs_gate:
        return None
    P = len(prefix_ids)
    where = torch.tensor(head.gate_indices(prefix_ids, seqs))
    out = torch.empty(len(seqs), hidden.shape[-1], dtype=hidden.dtype, device=hidden.device)
    own = where >= P
    if own.any():
        rows = own.nonzero()[:, 0]
        out[rows.to(hidden.device)] = hidden[rows.to(hidden.device), (where[own] - P).to(hidden.device)]
    if (~own).any():
        if prefix_hidden is None:
            raise SweepError("the gating position lies in the prompt: pass the prefix's hidden states")
        rows = (~own).nonzero()[:, 0].to(hidden.device)
        out[rows] = prefix_hidden[where[~own].to(prefix_hidden.device)].to(hidden.device, hidden.dtype)
    return out


@torch.inference_mode()
def rm_scores_shared(lm: LoadedModel, kv, prefix_len: int, new_seqs, prefix=None) -> torch.Tensor:
    """Scores of prefix+new for each new sequence, read at each one's last real position (and, for a gated head,
    at its gating position: ``prefix`` is (the prefix's ids, its forward's hidden states), where the gate of a
    templated prompt lies). Index tensors live on the device of the tensor they index (a model split over GPUs ends
    on another device than it starts)."""
    backbone, head = backbone_and_head(lm)
    ids, lengths = right_pad(new_seqs, 0, lm.device)
    pos = torch.arange(prefix_len, prefix_len + ids.shape[1], device=ids.device).expand_as(ids)
    same_length = bool((lengths == ids.shape[1]).all())
    with shared_prefix(lm.model, kv), (_last_row_mlp(backbone) if same_length else contextlib.nullcontext()):
        hidden = backbone(input_ids=ids, position_ids=pos, use_cache=False).last_hidden_state
    last = hidden[torch.arange(len(new_seqs), device=hidden.device), lengths.to(hidden.device) - 1]
    gate = None
    if head.needs_gate:
        if prefix is None or len(prefix[0]) != prefix_len:
            raise SweepError("a gated head scored after a shared prefix needs the prefix's ids and hidden states")
        gate = gate_hidden(lm, new_seqs, hidden, *prefix)
    return head.score(last, gate)


@torch.inference_mode()
def lm_logprobs_shared(lm: LoadedModel, kv, first_logprobs: torch.Tensor, prefix_len: int, answers) -> torch.Tensor:
    """Summed log p(answer | templated prefix) of each answer (lists of ids, any lengths): token 0 is read from the
    prefix's last position (``first_logprobs``, a log-softmax over the vocabulary), token k from new position k-1.

    Only positions 0..n-2 run through the model: the last token of an answer is scored, never context (feeding it
    too cost 1/n of the forward, half of it at n = 2). Each term is ``logit[token] - logsumexp(logits)``, the
    log-softmax entry without materialising the [batch, n-1, vocabulary] log-softmax."""
    total = first_logprobs[torch.as_tensor([a[0] for a in answers], device=first_logprobs.device)]
    ids, lengths = right_pad(answers, 0, lm.device)
    if ids.shape[1] > 1:
        context = ids[:, :-1]
        pos = torch.arange(prefix_len, prefix_len + context.shape[1], device=lm.device).expand_as(context)
        with shared_prefix(lm.model, kv):
            logits = lm.model(input_ids=context, position_ids=pos, use_cache=False).logits.float()
        ids, lengths = ids.to(logits.device), lengths.to(logits.device)  # the last layer's device
        logp = logits.gather(-1, ids[:, 1:, None])[..., 0] - logits.logsumexp(-1)
        keep = torch.arange(1, ids.shape[1], device=logits.device)[None] < lengths[:, None]
        total = total.to(logits.device) + (logp * keep).sum(1)
    return total


_COMPILED: dict = {}  # (id(model), batch, positions) -> compiled backbone+head, reused across sweeps


def _compiled_scorer(lm: LoadedModel, bs: int, prefix_len: int, width: int):
    if lm.reward_head.needs_gate:
        raise SweepError(f"compile=True is not supported for the gated {lm.reader} head; leave compile off")
    """torch.compile of backbone+head for one fixed [bs, width] batch shape (dynamic=False: compiled once a sweep)."""
    key = (id(lm.model), bs, prefix_len, width)
    if key not in _COMPILED:
        backbone, head = backbone_and_head(lm)
        pos = torch.arange(prefix_len, prefix_len + width, device=lm.device).expand(bs, width)

        def score_last(ids):
            hidden = backbone(input_ids=ids, position_ids=pos, use_cache=False).last_hidden_state
            return head.score(hidden[:, -1])

        _COMPILED.clear()  # one entry at a time: it keeps its model alive (the closure), and compiled code is large
        _COMPILED[key] = torch.compile(score_last, dynamic=False)
    return _COMPILED[key]


@torch.inference_mode()
def rm_scores_shared_compiled(lm: LoadedModel, kv, prefix_len: int, new_seqs, bs: int) -> torch.Tensor:
    """As `rm_scores_shared`, through a graph compiled for exactly `bs` rows: a short last batch is padded by
    repeating its last row (rows are independent, the padding is dropped). All new sequences have one length here."""
    n = len(new_seqs)
    width = len(new_seqs[0])
    if any(len(s) != width for s in new_seqs):
        raise SweepError("compiled scoring needs candidates of one length")
    ids = torch.as_tensor(new_seqs + [new_seqs[-1]] * (bs - n), device=lm.device)
    with shared_prefix(lm.model, kv), _last_row_mlp(backbone_and_head(lm)[0]):
        return _compiled_scorer(lm, bs, prefix_len, width)(ids)[:n].float()


@torch.inference_mode()
def rm_scores_full(lm: LoadedModel, seqs) -> torch.Tensor:
    """Plain full-sequence forwards of whole conversations (the reference path), read by the model's score reader."""
    ids, lengths = right_pad(seqs, 0, lm.device)
    mask = (torch.arange(ids.shape[1], device=ids.device)[None] < lengths[:, None]).long()
    backbone, head = backbone_and_head(lm)
    hidden = backbone(input_ids=ids, attention_mask=mask, use_cache=False).last_hidden_state
    last = hidden[torch.arange(len(seqs), device=hidden.device), lengths.to(hidden.device) - 1]
    return head.score(last, gate_hidden(lm, seqs, hidden))


@torch.inference_mode()
def rm_scores_paper(lm: LoadedModel, prompt: str, texts) -> tuple[torch.Tensor, list[list[int]]]:
    """The papers' pipeline: each answer's text re-rendered into the conversation, the batch re-tokenised and padded,
    the score read where that pipeline read it, the token before each row's first pad
    (:func:`rmlib.models.reward_heads.paper_last_index`), and the gate found in the padded row as the authors' code
    finds it. Returns the scores and each row's real (unpadded) token ids."""
    tok = lm.tokenizer
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    convs = [paper_text(tok, prompt, t, lm.chat_template) for t in texts]
    batch = tok(convs, padding=True, return_tensors="pt").to(lm.device)
    input_ids, mask = batch["input_ids"], batch["attention_mask"]
    backbone, head = backbone_and_head(lm)
    hidden = backbone(input_ids=input_ids, attention_mask=mask, use_cache=False).last_hidden_state
    pad = lm.model.config.pad_token_id
    at = paper_last_index(input_ids, pad if pad is not None else tok.pad_token_id).to(hidden.device)
    last = hidden[torch.arange(len(convs), device=hidden.device), at]
    ids = [row[m.bool()].tolist() for row, m in zip(input_ids, mask)]
    return head.score(last, gate_hidden(lm, input_ids.tolist(), hidden)), ids

