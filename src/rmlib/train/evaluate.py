"""Held-out evaluation of a reward model on preference pairs: accuracy and reward variance.

- Does it rank held-out pairs correctly? :func:`pairwise_accuracy` on a run's test split (prompts never seen in
  training), scored on exactly the conversations training used (same template and truncation).
- Would it be a good teacher? :func:`reward_variance`: the variance of its rewards over the responses to each
  prompt, averaged over prompts (Razin et al. 2025 show low reward variance makes RLHF slow, whatever the accuracy).
  ``raw`` is in the RM's own units; ``whitened`` first z-scores all rewards of the test set (global mean and std),
  so RMs of different scales compare.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from rmlib.config import progress_bar
from rmlib.models import LoadedModel, LoadOptions, cached_model
from rmlib.train.encode import encode_pairs

__all__ = ["EvalError", "score_pairs", "pairwise_accuracy", "reward_variance"]


class EvalError(ValueError):
    pass


@torch.inference_mode()
def score_pairs(model, pairs: pd.DataFrame, max_len: int, batch_size: int = 16, progress: bool = True, *,
                load: LoadOptions | None = None) -> pd.DataFrame:
    """Reward of each pair's chosen and rejected conversation, encoded exactly as training encodes them
    (:mod:`rmlib.train.encode`).

    Returns the pairs' pair_id, prompt, chosen, rejected plus reward_chosen, reward_rejected, margin, truncated.
    """
    lm = model if isinstance(model, LoadedModel) else cached_model(model, load)
    if lm.head != "rm":
        raise EvalError(f"{lm.spec.id} is loaded as an LM; pairwise accuracy needs a reward model")
    if pairs.empty:
        raise EvalError("no pairs to score")
    enc = encode_pairs(lm.tokenizer, lm.chat_template, pairs, max_len)
    seqs = list(enc["chosen_ids"]) + list(enc["rejected_ids"])
    pad = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else 0
    out = []
    for s in progress_bar(range(0, len(seqs), batch_size), progress=progress,
                  desc=f"pairs {lm.spec.id}", unit="batch"):
        batch = seqs[s:s + batch_size]
        width = max(map(len, batch))
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for i, q in enumerate(batch):
            ids[i, :len(q)] = torch.as_tensor(q)
            mask[i, :len(q)] = 1
        logits = lm.model(input_ids=ids.to(lm.device), attention_mask=mask.to(lm.device)).logits
        out.append(logits[:, 0].float().cpu().numpy())
    r = np.concatenate(out)
    n = len(enc)
    res = enc[["pair_id", "prompt", "chosen", "rejected", "truncated"]].copy()
    res["reward_chosen"], res["reward_rejected"] = r[:n], r[n:]
    res["margin"] = res["reward_chosen"] - res["reward_rejected"]
    return res


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

