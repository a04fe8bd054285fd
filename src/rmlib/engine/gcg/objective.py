"""The one signed objective GCG climbs: its value for a batch of responses, and its gradient for one response.

The objective is ``sign * reward`` with sign +1 to maximise the reward and -1 to minimise it, and *both* steps of
the search use it: the gradient step ranks replacement tokens by the gradient of this signed objective, and the
selection step keeps the candidate with the largest signed objective. (The authors' fork of nanoGCG minimised only in
selection while its gradient always pulled the reward up, so its "pessima" were searched among tokens proposed for
raising the reward; ``tests/unit/engine/gcg`` plants an optimum that this bug cannot find.)

The reward is read exactly as the sweep engine reads it:

* a reward model: its score of ``prefix + response + suffix``, read at the last position (the template's own
  suffix included), through the sweep engine's shared-prefix kernel :func:`rmlib.engine.kernels.rm_scores_shared`;
* a language model: the summed log-probability of the response given the templated prefix (an *implicit* reward),
  through :func:`rmlib.engine.kernels.lm_logprobs_shared`, the kernel of :func:`rmlib.engine.score_answers`.

The gradient is taken through the one-hot matrix of the response tokens (``one_hot @ W_E``, times the model's
embedding scale where it has one), with the prompt's keys and values computed once and shared, and the suffix after
the response, so it is the gradient of the very number the kernels return.
"""
from __future__ import annotations

import numpy as np
import torch

from rmlib import costs
from rmlib.engine.checks import SweepError, auto_batch_size
from rmlib.engine.kernels import backbone_and_head, lm_logprobs_shared, prefix_kv, rm_scores_shared
from rmlib.engine.prefix_attention import shared_prefix
from rmlib.models import AnswerSlot, LoadedModel

__all__ = ["DIRECTIONS", "GCGError", "Objective"]

DIRECTIONS = {"max": 1.0, "min": -1.0}


class GCGError(SweepError):
    """A GCG search cannot run as asked (bad length, direction, vocabulary or model); the message says why."""


class Objective:
    """``sign * reward`` of ``length``-token responses to one prompt, for one model (an RM or an LM)."""

    def __init__(self, lm: LoadedModel, slot: AnswerSlot, direction: str, batch_size: int | None = None):
        if direction not in DIRECTIONS:
            raise GCGError(f"direction must be one of {sorted(DIRECTIONS)}, not {direction!r}")
        self.lm, self.slot, self.direction = lm, slot, direction
        self.sign = DIRECTIONS[direction]
        self.prefix_len = len(slot.prefix_ids)
        kv, out = prefix_kv(lm, slot.prefix_ids)  # once: every candidate and every gradient attends to it
        self._kv = kv
        # prefix_kv runs in inference mode; autograd needs ordinary tensors to save for the backward pass.
        self._kv_grad = [(k.clone(), v.clone()) for k, v in kv]
        self._first = torch.log_softmax(out.logits[0, -1].float(), dim=-1).clone() if lm.head == "lm" else None
        # an RM whose head reads a gating token in the prompt (ArmoRM, QRM) takes its hidden state from here
        self._prefix_hidden = out.last_hidden_state[0].clone() if lm.head == "rm" else None
        self._suffix = list(slot.suffix_ids) if lm.head == "rm" else []  # an LM's log-prob ends with the response
        self._batch_size = batch_size
        self._embedding = lm.model.get_input_embeddings()
        self._scale = getattr(self._embedding, "embed_scale", None)  # Gemma multiplies embeddings by sqrt(hidden)
        if self._first is not None and self._first.shape[0] != self._embedding.weight.shape[0]:
            raise GCGError(f"{lm.spec.id}: {self._first.shape[0]} logits but {self._embedding.weight.shape[0]} "
                           "embedding rows; GCG needs one row per scored token")

    # ------------------------------------------------------------ values

    def batch_size(self, length: int) -> int:
        """Candidates per forward: the caller's, else the sweep engine's automatic size for this many new positions
        (LMs: bounded by the [batch, length, vocabulary] logits, as score_answers bounds them)."""
        if self._batch_size:
            return self._batch_size
        if self.lm.head == "lm":
            return max(1, min(256, 2 ** 22 // max(length * self._embedding.weight.shape[0], 1)))
        return auto_batch_size(self.lm, length + len(self._suffix))

    def rewards(self, responses) -> np.ndarray:
        """The (unsigned) reward of each response, a list of equal-length id tuples: unpadded batches through the
        sweep engine's kernels."""
        responses = [list(r) for r in responses]
        if not responses:
            return np.zeros(0, dtype=np.float64)
        if len({len(r) for r in responses}) != 1:
            raise GCGError("GCG scores candidates of one length at a time (no padding)")
        bs = self.batch_size(len(responses[0]))
        out = []
        for s in range(0, len(responses), bs):
            batch = responses[s:s + bs]
            if self.lm.head == "lm":
                out.append(lm_logprobs_shared(self.lm, self._kv, self._first, self.prefix_len, batch))
            else:
                out.append(rm_scores_shared(self.lm, self._kv, self.prefix_len, [r + self._suffix for r in batch],
                                            (self.slot.prefix_ids, self._prefix_hidden)))
        return torch.cat(out).double().cpu().numpy()

    def signed(self, rewards) -> np.ndarray:
        """What the search maximises: ``sign * reward`` (the selection step and the gradient step both use it)."""
        return self.sign * np.asarray(rewards, dtype=np.float64)

    # ------------------------------------------------------------ gradient

    def _embed_one_hot(self, one_hot: torch.Tensor) -> torch.Tensor:
        emb = one_hot @ self._embedding.weight
        return emb * self._scale.to(emb.dtype) if self._scale is not None else emb

    def check_embedding(self, ids) -> None:
        """Refuse an embedding module whose output ``one_hot @ W_E`` (times its scale) does not reproduce: the
        gradient would then belong to another function than the reward."""
        idx = torch.as_tensor(list(ids), device=self.lm.device)
        one_hot = torch.nn.functional.one_hot(idx, self._embedding.weight.shape[0]).to(self._embedding.weight.dtype)
        with torch.no_grad():
            ours, theirs = self._embed_one_hot(one_hot).float(), self._embedding(idx).float()
        if not torch.allclose(ours, theirs, rtol=1e-2, atol=1e-3 * float(theirs.abs().max()) + 1e-6):
            raise GCGError(f"{self.lm.spec.id}: its input embedding ({type(self._embedding).__name__}) is not a "
                           "plain (scaled) lookup table, so GCG cannot take the gradient through its one-hot matrix")

    def gradient(self, ids) -> torch.Tensor:
        """d(sign * reward)/d(one-hot) at the response ``ids``: a float32 [length, embedding rows] tensor on the CPU.
        Large entries are replacements that the first-order approximation expects to raise the signed objective."""
        weight = self._embedding.weight
        idx = torch.as_tensor(list(ids), device=self.lm.device)
        one_hot = torch.nn.functional.one_hot(idx, weight.shape[0]).to(weight.dtype).requires_grad_(True)
        with torch.enable_grad():
            (grad,) = torch.autograd.grad(self.sign * self.reward_of_one_hot(one_hot), one_hot)
        # the response's positions ran from embeddings, unseen by the FLOP hook (an RM's suffix ran from ids, seen);
        # the backward pass to the one-hot runs the same products again over every position that ran
        model, length = self.lm.model, len(idx)
        ran = length if self.lm.head == "rm" else length - 1
        costs.add_flops(costs.forward_flops(model, ran) + costs.forward_flops(model, ran + len(self._suffix)))
        return grad.float().cpu()

    def reward_of_one_hot(self, one_hot: torch.Tensor) -> torch.Tensor:
        """The reward as a differentiable function of the [length, embedding rows] one-hot response: at a one-hot
        matrix it equals :meth:`rewards` of those ids (``tests/integration/test_gcg.py`` checks it per family)."""
        x = self._embed_one_hot(one_hot)
        return self._lm_reward(one_hot, x) if self.lm.head == "lm" else self._rm_reward(x)

    def _rm_reward(self, x: torch.Tensor) -> torch.Tensor:
        backbone, head = backbone_and_head(self.lm)
        if self._suffix:
            suffix = torch.as_tensor(self._suffix, device=self.lm.device)
            with torch.no_grad():
                after = self._embedding(suffix).to(x.dtype)
            x = torch.cat([x, after])
        pos = torch.arange(self.prefix_len, self.prefix_len + x.shape[0], device=self.lm.device)[None]
        with shared_prefix(self.lm.model, self._kv_grad):
            hidden = backbone(inputs_embeds=x[None], position_ids=pos, use_cache=False).last_hidden_state
        gate = None
        if head.needs_gate:  # a response made of ordinary tokens never holds the gating tokens: they are the prompt's
            gate = self._prefix_hidden[head.gate_index(self.slot.prefix_ids)][None]
        return head.score(hidden[:, -1], gate)[0]

    def _lm_reward(self, one_hot: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """sum_k log p(token k): token 0 from the prefix's last logits, token k from the response's position k-1;
        each term is the one-hot row dotted with a log-softmax, so the gradient reaches every position twice
        (as the token scored and as the context of the tokens after it)."""
        total = one_hot[0].float() @ self._first
        if one_hot.shape[0] > 1:
            pos = torch.arange(self.prefix_len, self.prefix_len + x.shape[0] - 1, device=self.lm.device)[None]
            with shared_prefix(self.lm.model, self._kv_grad):
                logits = self.lm.model(inputs_embeds=x[None, :-1], position_ids=pos, use_cache=False).logits
            logp = torch.log_softmax(logits[0].float(), dim=-1)
            total = total + (one_hot[1:].float() * logp).sum()
        return total
