"""What an LM's value card adds (#66 item 5): an LM has no reward head, so its card reads an *implicit* reward, the
answer's log-probability under the prompt. That reward falls with the answer's length and rises with its frequency
whatever it means, so an LM's card prints how strongly its rewards follow both, and offers the mean log-probability
per token (``rmlib card --reward per-token``), which takes the length out of the sum. The ICLR paper's implicit reward
is a log-probability *difference* against a reference model (instruct minus base), as is RewardBench's DPO path; a
card is of one model, so it does not offer that reward (the implicit_vs_explicit chapter computes it for the book's
pairs), and its caveat says so."""
from __future__ import annotations

import pandas as pd

from rmlib.data import frequency_table
from rmlib.data.kinds import LM_LOGPROB, LM_MEAN_LOGPROB
from rmlib.stats import require_columns

__all__ = ["REWARDS", "FREQUENCY_SOURCE", "per_token", "lm_correlations"]

REWARDS = {"sum": LM_LOGPROB, "per-token": LM_MEAN_LOGPROB}  # rmlib card --reward: the LM reward each gives
FREQUENCY_SOURCE = "wordfreq"  # the mere-exposure chapter's source that rates all but a few of the card's words


def per_token(scores: pd.DataFrame) -> pd.DataFrame:
    """An LM's summed log-probabilities (rows with ``n_tokens``, the answer's token count) as their mean per token,
    relabelled :data:`LM_MEAN_LOGPROB`. An RM's score is refused: it is one number for the whole answer, with no
    tokens to average."""
    require_columns(scores, ["reward", "reward_kind", "n_tokens"], "scores")
    kinds = set(scores["reward_kind"])
    if kinds != {LM_LOGPROB}:
        raise ValueError(f"--reward per-token averages an LM's log-probability over the answer's tokens; these "
                         f"rewards are {sorted(kinds)} (an RM's score is one number per answer: give --reward sum)")
    if (scores["n_tokens"] < 1).any():
        raise ValueError("an answer of no tokens has no per-token log-probability")
    return scores.assign(reward=scores["reward"] / scores["n_tokens"], reward_kind=LM_MEAN_LOGPROB)


def lm_correlations(scores: pd.DataFrame) -> dict[str, float]:
    """Spearman's ρ of an LM's rewards with the answer's token count (``length``) and with the word's Zipf frequency
    (``frequency``: :data:`FREQUENCY_SOURCE`, through :func:`rmlib.data.frequency_table` as the mere-exposure chapter
    reads it, the word lowercased), within each prompt, and per prompt valence the lowest and highest over its prompts:
    keys ``<length|frequency>_<valence>_<min|max>``. Words no source rates drop out of the frequency's ρ."""
    require_columns(scores, ["prompt_key", "word", "reward", "n_tokens", "valence"], "scores")
    lower = scores["word"].astype(str).str.lower()
    zipf = frequency_table(lower.unique(), sources=(FREQUENCY_SOURCE,)).set_index("word")[f"zipf_{FREQUENCY_SOURCE}"]
    frame = scores.assign(length=scores["n_tokens"].astype(float), frequency=lower.map(zipf).to_numpy())
    out = {}
    for name in ("length", "frequency"):
        rho = frame.dropna(subset=[name]).groupby(["valence", "prompt_key"]).apply(
            lambda g, c=name: g["reward"].corr(g[c], method="spearman"), include_groups=False)
        for valence, per_prompt in rho.groupby(level="valence"):
            out[f"{name}_{valence}_min"] = float(per_prompt.min())
            out[f"{name}_{valence}_max"] = float(per_prompt.max())
    return out
