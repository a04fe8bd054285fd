"""Implicit rewards between language models: the mixture-weighted log ratio of two LMs (MWLR) and the DPO log-ratio
of an instruct model and its base, in the value-profile shape, one pseudo-model per pair."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from rmlib.data import DPO_KIND, MWLR_KIND, is_lm_logprob, value_columns
from rmlib.stats import require_columns

__all__ = ["mwlr", "dpo_log_ratio", "implicit_reward_scores"]


def mwlr(logp1, logp2):
    """Mixture-weighted log ratio ½(p₁+p₂)(log p₁ − log p₂) from (summed) log-probs.

    Positive when model 1 gives the word more probability; antisymmetric in its arguments; weighted towards words
    that at least one model finds likely, so rare strings with large but meaningless ratios do not dominate.
    """
    a, b = np.asarray(logp1, dtype=float), np.asarray(logp2, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"mwlr: log-prob arrays differ in shape {a.shape} vs {b.shape}")
    if np.any(a > 1e-6) or np.any(b > 1e-6):
        raise ValueError("mwlr: inputs must be log-probabilities (<= 0); got positive values (raw logits?)")
    return 0.5 * (np.exp(a) + np.exp(b)) * (a - b)


def dpo_log_ratio(logp_policy, logp_reference, beta: float = 1.0):
    """DPO's implicit reward β (log π(y|x) − log π_ref(y|x)) for an instruct (policy) model and its base."""
    if beta <= 0:
        raise ValueError(f"beta must be positive, got {beta}")
    a, b = np.asarray(logp_policy, dtype=float), np.asarray(logp_reference, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"dpo_log_ratio: log-prob arrays differ in shape {a.shape} vs {b.shape}")
    return beta * (a - b)


def implicit_reward_scores(lm_scores: pd.DataFrame, pairs: Sequence[tuple[str, str]], kind: str = "mwlr",
                           beta: float = 1.0) -> pd.DataFrame:
    """Implicit rewards from LM log-prob tables (:func:`rmlib.analysis.values.compute_value_scores` of LMs), one
    pseudo-model per pair.

    kind='mwlr': pairs are (LM of family A, LM of family B); model = 'MWLR(A‖B)', family = 'A−B' (positive = A
    prefers the word). kind='dpo': pairs are (instruct model, its base); model = 'DPO(instruct/base)', family = the
    shared family.
    """
    if kind not in ("mwlr", "dpo"):
        raise ValueError(f"kind must be 'mwlr' or 'dpo', not {kind!r}")
    require_columns(lm_scores, ["model", "nickname", "family", "reward_kind", "prompt_key", "word", "reward"])
    not_lm = lm_scores.loc[~lm_scores["reward_kind"].map(is_lm_logprob), "model"].unique()
    if len(not_lm):
        raise ValueError(f"implicit rewards need LM log-probs; {list(not_lm)} are scored as "
                         f"{lm_scores.loc[lm_scores['model'].isin(not_lm), 'reward_kind'].iloc[0]!r}")
    keys = [c for c in lm_scores.columns if c not in ("model", "nickname", "family", "reward_kind", "reward",
                                                      "n_tokens")]
    frames = []
    for a, b in pairs:
        if a == b:
            raise ValueError(f"pair ({a!r}, {b!r}) compares a model with itself")
        sa, sb = (lm_scores[lm_scores["model"] == m] for m in (a, b))
        for m, s in ((a, sa), (b, sb)):
            if s.empty:
                raise ValueError(f"model {m!r} is not in the log-prob table (has {sorted(lm_scores['model'].unique())})")
        fa, fb = sa["family"].iloc[0], sb["family"].iloc[0]
        na, nb = sa["nickname"].iloc[0], sb["nickname"].iloc[0]
        if kind == "mwlr" and fa == fb:
            raise ValueError(f"MWLR compares families; {a} and {b} are both {fa}")
        if kind == "dpo" and fa != fb:
            raise ValueError(f"a DPO log-ratio needs an instruct model and its own base; {a} is {fa}, {b} is {fb}")
        j = sa[keys + ["reward"]].merge(sb[["prompt_key", "word", "reward"]], on=["prompt_key", "word"],
                                        suffixes=("_a", "_b"), validate="one_to_one")
        if len(j) != len(sa) or len(j) != len(sb):
            raise ValueError(f"{a} and {b} were not scored on the same prompts and words")
        if kind == "mwlr":
            reward = mwlr(j["reward_a"], j["reward_b"])
            label, family, rk = f"MWLR({na}‖{nb})", f"{fa}−{fb}", MWLR_KIND
        else:
            reward = dpo_log_ratio(j["reward_a"], j["reward_b"], beta)
            label, family, rk = f"DPO({na}/{nb})", fa, DPO_KIND
        frames.append(j[keys].assign(model=label, nickname=label, family=family, reward_kind=rk, reward=reward))
    if not frames:
        raise ValueError("pairs is empty")
    out = pd.concat(frames, ignore_index=True)
    dictionary = "mfd2" if "foundation" in out.columns else "big2"
    return value_columns(out, dictionary)


