"""What a reward column holds: the labels of the ``reward_kind`` column, in one place, importable without torch.

Every table of rewards carries a ``reward_kind``, so that no chapter can show an LM's log-probability (an *implicit*
reward) as if it came from a trained reward model. The engine labels what it computes (:mod:`rmlib.engine.rewards`),
the data layer what the papers published, and the implicit-reward analyses what they derive.
"""
from __future__ import annotations

__all__ = ["RM_SCORE", "RM_SCORE_PUBLISHED", "LM_LOGPROB", "LM_MEAN_LOGPROB", "MWLR_KIND", "DPO_KIND", "is_lm_logprob"]

RM_SCORE = "RM score"                                   # a reward model's scalar output
RM_SCORE_PUBLISHED = "RM score (published)"             # the authors' released scores (value-profile chapters)
LM_LOGPROB = "LM log-prob (implicit reward)"            # a language model's log-probability of the answer
LM_MEAN_LOGPROB = "LM log-prob per token (implicit reward)"  # the same, divided by the answer's token count
MWLR_KIND = "MWLR implicit reward (LM pair)"            # mixture-weighted log ratio of two LMs
DPO_KIND = "DPO log-ratio implicit reward (instruct vs base)"


def is_lm_logprob(kind) -> bool:
    """True when the reward is a language model's own log-probability (an implicit reward, not a trained RM), summed
    over the answer's tokens or their mean."""
    return kind in (LM_LOGPROB, LM_MEAN_LOGPROB)
