"""Compute-mode rewards with one shape, whatever the model is.

Chapters take a list of model ids. A reward model gives its score; a plain LM
gives the log-probability of the answer under the same templated prompt, which
is an *implicit* reward. The `reward_kind` column says which, so no chapter can
present an LM as if it were a trained RM.
"""
from __future__ import annotations

import pandas as pd

from .models import get_spec, load_model
from .sweep import score_answers, sweep

RM_SCORE = "RM score"
LM_LOGPROB = "LM log-prob (implicit reward)"

_loaded: dict = {}


def model_for(model_id: str, dtype: str | None = None, head: str | None = None, **kwargs):
    """Load once per process: chapters sweep several prompts with the same model.

    `head` defaults to the registry's kind; pass head="lm" for a hub LM that the registry does not know.
    """
    spec = get_spec(model_id)
    head = head or spec.kind
    key = (model_id, spec.revision, dtype, head, tuple(sorted(kwargs.items())))
    if key not in _loaded:
        _loaded[key] = load_model(model_id, head=head, dtype=dtype, **kwargs)
    return _loaded[key]


def token_rewards(model_id: str, prompt: str, tokens=None, dtype: str | None = None, progress: bool = True,
                  head: str | None = None, **kwargs) -> pd.DataFrame:
    """One row per vocabulary token: model, prompt, token_id, token, text, is_special, reward, reward_kind."""
    lm = model_for(model_id, dtype, head, **kwargs)
    df = sweep(lm, prompt, tokens=tokens, progress=progress).frame
    if lm.head == "rm":
        out = df.assign(reward=df["score"], reward_kind=RM_SCORE)
    else:
        out = df.assign(reward=df["logprob"], reward_kind=LM_LOGPROB)
    return out


def answer_rewards(model_id: str, prompts, answers, dtype: str | None = None, progress: bool = True,
                   head: str | None = None, **kwargs) -> pd.DataFrame:
    """One row per (prompt, answer): model, prompt, answer, n_tokens, reward, reward_kind (multi-token answers)."""
    lm = model_for(model_id, dtype, head, **kwargs)
    df = score_answers(lm, prompts, answers, progress=progress)
    if lm.head == "rm":
        return df.assign(reward=df["score"], reward_kind=RM_SCORE)
    return df.assign(reward=df["logprob"], reward_kind=LM_LOGPROB)
