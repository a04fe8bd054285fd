"""The one place where a model becomes rewards: the same shape whatever the model, labelled by reward kind.

Chapters take a list of model ids. A reward model gives its score; a plain LM gives the log-probability of the
answer under the same templated prompt, which is an *implicit* reward. The ``reward`` column holds the one or the
other and ``reward_kind`` says which (:mod:`rmlib.data.kinds`), so no chapter can present an LM as a trained RM.
The raw outputs stay beside it: ``score`` (an RM's head), ``logit`` and ``logprob`` (an LM). Models are loaded once
per process (:func:`rmlib.models.cached_model`); ``load`` (a :class:`rmlib.models.LoadOptions`) says how.
"""
from __future__ import annotations

from typing import Sequence

import pandas as pd

from rmlib.data.kinds import LM_LOGPROB, RM_SCORE
from rmlib.data.prompts import prompt_table
from rmlib.engine import sweep_index
from rmlib.engine.answers import score_answers
from rmlib.engine.checks import resolve_model
from rmlib.engine.token_sweep import sweep
from rmlib.errors import as_list

__all__ = ["token_rewards", "token_rewards_many", "answer_rewards", "token_reward_table", "with_reward"]


def with_reward(df: pd.DataFrame, head: str) -> pd.DataFrame:
    """``df`` (a sweep or an answer set) with ``reward`` (an RM's score, an LM's log-prob) and ``reward_kind``."""
    if head == "rm":
        return df.assign(reward=df["score"], reward_kind=RM_SCORE)
    return df.assign(reward=df["logprob"], reward_kind=LM_LOGPROB)


def token_rewards(model, prompt: str, *, tokens=None, progress: bool = True, load=None) -> pd.DataFrame:
    """One row per vocabulary token: model, prompt, token_id, token, text, is_special, the raw outputs, reward,
    reward_kind. ``tokens``: a vocabulary slice or id list (None: all).

    A sweep this cache already holds is served without loading the model when the model's weights can be identified
    without loading them (:mod:`rmlib.engine.sweep_index`); it is verified byte for byte first."""
    request = sweep_index.request_key(model, prompt, tokens, load)
    hit = (sweep_index.lookup(request, expect=sweep_index.stands_for(model, prompt, load))
           if request is not None else None)
    if hit is not None:
        result, head = hit
        return with_reward(result.frame, head)
    lm = resolve_model(model, load)
    result = sweep(lm, prompt, tokens=tokens, progress=progress)
    if request is not None:
        sweep_index.record(request, result, lm.head)
    return with_reward(result.frame, lm.head)


def token_rewards_many(models: Sequence, prompts: Sequence[str], *, tokens=None, progress: bool = False,
                       load=None) -> pd.DataFrame:
    """:func:`token_rewards` of every model under every prompt (texts), one frame, models outermost."""
    models, prompts = as_list(models, "models"), as_list(prompts, "prompts")
    if not models or not prompts:
        raise ValueError("give at least one model and one prompt (e.g. ['smollm2-135m-instruct'], "
                         "[rmlib.data.prompt_text('greatest')])")
    return pd.concat([token_rewards(m, p, tokens=tokens, progress=progress, load=load) for m in models
                      for p in prompts], ignore_index=True)


def answer_rewards(model, prompts, answers, *, progress: bool = True, load=None) -> pd.DataFrame:
    """One row per (prompt, answer): model, prompt, answer, n_tokens, the raw output, reward, reward_kind
    (multi-token answers)."""
    lm = resolve_model(model, load)
    return with_reward(score_answers(lm, prompts, answers, progress=progress), lm.head)


def token_reward_table(models: Sequence[str], prompt_keys: Sequence[str], *, tokens=None, progress: bool = False,
                       load=None) -> pd.DataFrame:
    """Full-vocabulary sweeps of each model under each prompt (by key: :func:`rmlib.data.prompt_table`).

    Columns: level ('token'), model, reward_kind, prompt_key, prompt, prompt_valence, token_id, token, text, reward
    (an RM's score, or an LM's log-prob = implicit reward; see reward_kind). Special tokens are dropped: they are not
    answers.
    """
    models = as_list(models, "models")
    if not models:
        raise ValueError("models is empty: give model ids, e.g. ['smollm2-135m-instruct'] or ['local:<name>']")
    prompts = prompt_table(prompt_keys)
    frames = []
    for m in models:
        for p in prompts.itertuples():
            df = token_rewards(m, p.prompt, tokens=tokens, progress=progress, load=load)
            df = df[~df["is_special"]]
            frames.append(pd.DataFrame({
                "level": "token", "model": m, "reward_kind": df["reward_kind"].to_numpy(),
                "prompt_key": p.prompt_key, "prompt": p.prompt, "prompt_valence": p.prompt_valence,
                "token_id": df["token_id"].to_numpy(), "token": df["token"].to_numpy(), "text": df["text"].to_numpy(),
                "reward": df["reward"].to_numpy(float)}))
    return pd.concat(frames, ignore_index=True)
