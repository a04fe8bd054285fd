"""Held-out evaluation of a reward model on preference pairs: accuracy and reward variance.

- Does it rank held-out pairs correctly? :func:`pairwise_accuracy` on a run's test split (prompts never seen in
  training), scored on exactly the conversations training used (same template and truncation).
- Would it be a good teacher? :func:`reward_variance`: the variance of its rewards over the responses to each
  prompt, averaged over prompts (Razin et al. 2025 show low reward variance makes RLHF slow, whatever the accuracy).
  ``raw`` is in the RM's own units; ``whitened`` first z-scores all rewards of the test set (global mean and std),
  so RMs of different scales compare.

An implicit RM (a DPO run's export, a causal LM) is scored by its implicit reward β·(log πθ(y|x) − log πref(y|x)),
with y the completion DPO trained on (the response and the template's end of turn), πref the run's base loaded in the
same dtype, and β the run's: the margin is then comparable in kind with an explicit RM's (a logit of preference).
"""
from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd
import torch

from rmlib import costs
from rmlib.config import progress_bar
from rmlib.models import LoadedModel, LoadOptions, cached_model
from rmlib.models.devices import dtype_name
from rmlib.train.config import stored_tuning
from rmlib.train.encode import encode_pairs
from rmlib.train.frozen import FrozenStates, decoder_layers, serving_frozen_layers
from rmlib.errors import RmlibError

__all__ = ["EvalError", "score_pairs", "completion_logps", "pairwise_accuracy", "reward_variance"]


class EvalError(RmlibError, ValueError):
    pass


@costs.phase("evaluate")
@torch.inference_mode()
def score_pairs(model, pairs: pd.DataFrame, max_len: int, batch_size: int = 16, progress: bool = True, *,
                load: LoadOptions | None = None) -> pd.DataFrame:
    """Reward of each pair's chosen and rejected conversation, encoded exactly as training encodes them
    (:mod:`rmlib.train.encode`).

    Returns the pairs' pair_id, prompt, chosen, rejected plus reward_chosen, reward_rejected, margin, truncated.
    An implicit RM (a DPO run, see the module doc) also gets logp_* and ref_logp_* of each completion.
    """
    lm = model if isinstance(model, LoadedModel) else cached_model(model, load)
    implicit = lm.head == "lm" and lm.spec.extra.get("objective") == "dpo"
    if lm.head != "rm" and not implicit:
        raise EvalError(f"{lm.spec.id} is loaded as an LM; pairwise accuracy needs a reward model (a scalar head, "
                        "or a DPO run of rmlib.train, whose implicit reward is scored)")
    if pairs.empty:
        raise EvalError("no pairs to score")
    enc = encode_pairs(lm.tokenizer, lm.chat_template, pairs, max_len)
    seqs = list(enc["chosen_ids"]) + list(enc["rejected_ids"])
    res = enc[["pair_id", "prompt", "chosen", "rejected", "truncated"]].copy()
    n = len(enc)
    if implicit:
        starts = np.concatenate([enc["prompt_len"].to_numpy()] * 2)
        ref = cached_model(lm.spec.extra["base_model"], LoadOptions(head="lm", dtype=dtype_name(lm.dtype),
                                                                    device=str(lm.device),
                                                                    seed=int(lm.spec.extra.get("seed", 0))))
        with _frozen_layers_served(lm, seqs, batch_size, progress) as states:
            pol = completion_logps(lm, seqs, starts, batch_size, progress)
            # the reference is the base: its embeddings and first K layers are the checkpoint's frozen ones
            with serving_frozen_layers(states, ref.model) if states is not None else contextlib.nullcontext():
                base = completion_logps(ref, seqs, starts, batch_size, progress)
        res["logp_chosen"], res["logp_rejected"] = pol[:n], pol[n:]
        res["ref_logp_chosen"], res["ref_logp_rejected"] = base[:n], base[n:]
        r = float(lm.spec.extra["beta"]) * (pol - base)
    else:
        with _frozen_layers_served(lm, seqs, batch_size, progress):
            r = np.concatenate([logits[:, 0].float().cpu().numpy() for logits, _, _ in _forward(lm, seqs, batch_size,
                                                                                              progress)])
    res["reward_chosen"], res["reward_rejected"] = r[:n], r[n:]
    res["margin"] = res["reward_chosen"] - res["reward_rejected"]
    return res


def _frozen_layers_served(lm: LoadedModel, seqs: list, batch_size: int, progress: bool):
    """For a ``last_n`` checkpoint of rmlib (its frozen layers are its base's, checked by fingerprint at load), the
    held-out sequences' states after those layers, computed once and shared by every checkpoint of every run with
    the same base and frozen weights (:mod:`rmlib.train.frozen`); otherwise nothing changes. A trajectory evaluates
    each run's held-out pairs at every checkpoint: the frozen layers ran again for each. A DPO checkpoint (loaded
    as an LM) has them too, and its reference, the base, shares them. The context gives the states, or None."""
    extra = lm.spec.extra
    if extra.get("weights") != "partial" or stored_tuning(extra) != "last_n" or not extra.get("frozen_sha256"):
        return contextlib.nullcontext()
    k = len(decoder_layers(lm.model)) - int(extra["n_layers"])
    if k < 1:
        return contextlib.nullcontext()
    pad = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else 0
    states = FrozenStates(lm.model, k, pad, {"base": extra["base_model"], "frozen_sha256": extra["frozen_sha256"],
                                              "evaluation": True})
    states.ensure(seqs, batch_size=batch_size, progress=progress)
    return serving_frozen_layers(states)


def _forward(lm: LoadedModel, seqs: list, batch_size: int, progress: bool, starts=None):
    """(logits, ids, mask) per right-padded batch of token sequences. With `starts` (an LM), only the logits that
    predict tokens from the batch's earliest start on are computed (``logits_to_keep``): the prompt's are not
    needed, and the LM head over the whole vocabulary is a large part of the cost."""
    pad = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else 0
    for s in progress_bar(range(0, len(seqs), batch_size), progress=progress,
                          desc=f"pairs {lm.spec.id}", unit="batch"):
        batch = seqs[s:s + batch_size]
        width = max(map(len, batch))
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for i, q in enumerate(batch):
            ids[i, :len(q)] = torch.as_tensor(q)
            mask[i, :len(q)] = 1
        kw = {} if starts is None else {"logits_to_keep": width - max(1, int(min(starts[s:s + batch_size]))) + 1}
        yield lm.model(input_ids=ids.to(lm.device), attention_mask=mask.to(lm.device), **kw).logits, ids, mask


@torch.inference_mode()
def completion_logps(lm: LoadedModel, seqs: list, starts, batch_size: int = 16, progress: bool = False) -> np.ndarray:
    """Summed log-prob, under the causal LM `lm`, of each sequence's tokens from position `starts[i]` on, given the
    tokens before it: log π(completion | rendered prompt), the quantity DPO's implicit reward is built from."""
    if lm.head != "lm":
        raise EvalError(f"{lm.spec.id} is loaded as a reward model; completion log-probs need head='lm'")
    out, k, starts = [], 0, np.asarray(starts, dtype=np.int64)
    for logits, ids, mask in _forward(lm, seqs, batch_size, progress, starts):
        # logits[:, j] predicts token (width - n_kept + 1 + j); the last position predicts nothing
        first_pos = ids.shape[1] - logits.shape[1] + 1
        target = ids[:, first_pos:]
        logp = torch.log_softmax(logits[:, :-1].float(), dim=-1).gather(-1, target[..., None].to(logits.device))[..., 0]
        pos = torch.arange(first_pos, ids.shape[1])[None, :]
        first = torch.tensor(starts[k:k + len(ids)])[:, None]
        keep = (pos >= first) & mask[:, first_pos:].bool()
        out.append((logp.cpu() * keep).sum(1).numpy())
        k += len(ids)
    return np.concatenate(out)


def pairwise_accuracy(scored: pd.DataFrame) -> float:
    """Share of pairs whose chosen response scores higher (ties count one half)."""
    m = scored["margin"].to_numpy()
    return float(((m > 0) + 0.5 * (m == 0)).mean())


def reward_variance(scored: pd.DataFrame) -> dict:
    """Mean over prompts of the variance of rewards over that prompt's distinct responses: raw and whitened."""
    long = pd.concat([scored[["prompt", "chosen", "reward_chosen"]].set_axis(["prompt", "response", "reward"], axis=1),
                      scored[["prompt", "rejected", "reward_rejected"]].set_axis(["prompt", "response", "reward"], axis=1)])
    long = long.drop_duplicates(["prompt", "response"])
    sd = long["reward"].std(ddof=0)
    long["whitened"] = (long["reward"] - long["reward"].mean()) / (sd if sd > 0 else 1.0)
    per_prompt = long.groupby("prompt")[["reward", "whitened"]].var(ddof=0)
    counts = long.groupby("prompt").size()
    per_prompt = per_prompt[counts >= 2]
    return {"reward_var_raw": float(per_prompt["reward"].mean()),
            "reward_var_whitened": float(per_prompt["whitened"].mean()),
            "reward_sd": float(sd), "n_prompts": int(len(per_prompt))}

