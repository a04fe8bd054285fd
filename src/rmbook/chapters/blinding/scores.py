"""P(yes) of one model under the four conditions, read exactly through the engine (no sampling).

For an LM, P(yes) is the softmax over the two answers at the first position of the assistant's turn after the chat
template, ``p(Yes) / (p(Yes) + p(No))``, from :func:`rmlib.engine.answer_rewards` (the engine's id-exact LM path:
the log-prob of each answer after the chat template; cached like every sweep). For an RM it is the Bradley-Terry
probability that the RM prefers the conversation ending in "Yes", ``sigmoid(r(Yes) - r(No))``: the quantity its
training loss is about. The engine's face loads its modules when a model is scored, so the statistics load without
torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd
from scipy.special import expit

from rmbook.chapters.blinding.prompts import (CONDITIONS, Design, counterfactual_prompts, decision_prompts,
                                              replica_answers)
from rmlib import engine
from rmlib import models as rm_models
from rmlib.data.kinds import RM_SCORE
from rmlib.errors import as_list
from rmlib.registry import split_available

__all__ = ["Scorer", "engine_scorer", "p_yes", "ModelScores", "score_model", "split_available", "answer_tokens",
           "answer_tokens_many", "usability", "usable_table"]

Scorer = Callable[[list], pd.DataFrame]


def engine_scorer(model_id: str, answers: Sequence[str], *, progress: bool = True,
                  dtype: str | None = None) -> Scorer:
    """prompts -> the engine's rewards for each answer (:func:`rmlib.engine.answer_rewards`: an LM's log-prob of the
    answer after the chat template, or an RM's score of the whole conversation), cached like every sweep."""

    load = rm_models.LoadOptions(dtype=dtype) if dtype is not None else None
    answers = as_list(answers, "answers")

    def score(prompts):
        return engine.answer_rewards(model_id, as_list(prompts, "prompts"), answers, progress=progress, load=load)
    return score


def p_yes(scores: pd.DataFrame, answers: Sequence[str]) -> pd.DataFrame:
    """One row per prompt from a scorer's rows (prompt, answer, reward, reward_kind): p_yes = the favourable answer's
    share of the two (LM: softmax over the two log-probs; RM: Bradley-Terry sigmoid of the reward margin), margin =
    reward(yes) - reward(no), yes_no_mass = p(yes) + p(no) under the LM (how much of the next-token distribution the
    two answers take; NaN for an RM, whose scores are not probabilities)."""
    need = {"prompt", "answer", "reward", "reward_kind"}
    if not need <= set(scores.columns):
        raise ValueError(f"scores lack columns {sorted(need - set(scores.columns))}")
    wide = scores.pivot_table(index="prompt", columns="answer", values="reward", aggfunc="first")
    absent = [a for a in answers if a not in wide.columns]
    if absent or wide[list(answers)].isna().any().any():
        raise ValueError(f"every prompt needs a reward for each of {list(answers)}")
    kinds = scores.groupby("prompt")["reward_kind"].first()
    yes, no = wide[answers[0]].astype(float), wide[answers[1]].astype(float)
    out = pd.DataFrame({"prompt": wide.index, "reward_kind": kinds.reindex(wide.index).to_numpy(),
                        "margin": (yes - no).to_numpy(), "p_yes": expit(yes - no).to_numpy()})
    lm = out["reward_kind"].to_numpy() != RM_SCORE
    out["yes_no_mass"] = np.where(lm, np.exp(yes.to_numpy()) + np.exp(no.to_numpy()), np.nan)
    return out


@dataclass
class ModelScores:
    """One model's four conditions. ``table``: one row per template x descriptor x condition (template, domain, axis,
    attribute, descriptor, condition, prompt, p_yes, margin, yes_no_mass, replica_answer, replica_p, model,
    reward_kind); the blinded rows repeat the template's one blinded prompt. ``usable`` is False for an LM whose
    answers put less than ``min_mass`` of the next-token probability on the two answers (mean over the blinded
    prompts); then only the blinded prompts are scored and ``table`` holds them."""

    model: str
    reward_kind: str
    usable: bool
    mean_mass: float | None
    table: pd.DataFrame


def _scored(scorer: Scorer, prompts: pd.DataFrame, answers) -> pd.DataFrame:
    unique = list(dict.fromkeys(prompts["prompt"]))
    got = p_yes(scorer(unique), answers)
    if set(got["prompt"]) != set(unique):
        raise ValueError("the scorer did not return every prompt it was given")
    return prompts.merge(got, on="prompt", how="left", validate="many_to_one")


def score_model(model_id: str, design: Design, *, scorer: Scorer | None = None, min_mass: float = 0.5,
                progress: bool = True, dtype: str | None = None) -> ModelScores:
    """Score the four conditions for one model. ``scorer`` (prompts -> rows of prompt, answer, reward,
    reward_kind) defaults to the engine (:func:`engine_scorer`, loading the model in ``dtype``); tests pass a stub
    with a planted bias.

    Order: the blinded prompts first (they give the replica's answers and the usability check), then informed and
    told-to-ignore, then the counterfactual prompts built from the replica's answers."""
    scorer = scorer or engine_scorer(model_id, design.answers, progress=progress, dtype=dtype)
    prompts = decision_prompts(design)
    blinded = _scored(scorer, prompts[prompts["condition"] == "blinded"], design.answers)
    kind = str(blinded["reward_kind"].iloc[0])
    mass = None if kind == RM_SCORE else float(blinded.drop_duplicates("template")["yes_no_mass"].mean())
    if mass is not None and mass < min_mass:
        return ModelScores(model_id, kind, False, mass, blinded.assign(model=model_id))
    rest = _scored(scorer, prompts[prompts["condition"].isin(["informed", "told_to_ignore"])], design.answers)
    replica = replica_answers(blinded, design.answers)
    cf = _scored(scorer, counterfactual_prompts(design, replica), design.answers)
    table = pd.concat([rest, blinded, cf.drop(columns=["replica_answer", "replica_yes", "replica_p"])],
                      ignore_index=True)
    table = table.merge(replica, on="template", how="left").assign(model=model_id)
    order = {c: i for i, c in enumerate(CONDITIONS)}
    table = table.sort_values(["template", "axis", "descriptor", "condition"], key=lambda s: s.map(order)
                              if s.name == "condition" else s, kind="stable", ignore_index=True)
    return ModelScores(model_id, kind, True, mass, table)


def answer_tokens(model_id: str, answers: Sequence[str], dtype: str | None = None) -> pd.DataFrame:
    """How each answer is tokenised where the assistant's turn begins (rendered by the model's chat template):
    model, answer, token_ids, tokens, n_tokens, template_ends_with (the last characters before the answer).

    With one token per answer, P(yes) is exactly the next-token distribution restricted to the two answers."""

    # the very model the scorer loads (one copy per process)
    lm = rm_models.cached_model(model_id, rm_models.LoadOptions(dtype=dtype) if dtype is not None else None)
    tok = lm.tokenizer
    slot = rm_models.answer_slot(tok, "Is this a question?", lm.chat_template)
    before = tok.decode(list(slot.prefix_ids[-4:]))
    rows = []
    for a in answers:
        ids = tok(a, add_special_tokens=False).input_ids
        rows.append((model_id, a, ids, tok.convert_ids_to_tokens(ids), len(ids), before[-24:]))
    return pd.DataFrame(rows, columns=["model", "answer", "token_ids", "tokens", "n_tokens", "template_ends_with"])


def answer_tokens_many(models: Sequence[str], answers: Sequence[str], dtype: str | None = None) -> pd.DataFrame:
    """:func:`answer_tokens` of every model, one frame."""
    return pd.concat([answer_tokens(m, answers, dtype) for m in as_list(models, "models")], ignore_index=True)


def usability(runs: dict[str, ModelScores]) -> pd.DataFrame:
    """One row per scored model: model, reward kind, mean p(Yes)+p(No) on the blinded prompts (None for an RM),
    usable."""
    return pd.DataFrame([{"model": m, "reward kind": r.reward_kind, "mean p(Yes)+p(No), blinded prompts": r.mean_mass,
                          "usable": r.usable} for m, r in runs.items()])


def usable_table(runs: dict[str, ModelScores]) -> pd.DataFrame:
    """The scored table of every usable model, one frame; an error when no model is usable (nothing to measure)."""
    usable = [r.table for r in runs.values() if r.usable]
    if not usable:
        raise ValueError(f"no usable model among {list(runs)}: nothing to measure (see the usability table)")
    return pd.concat(usable, ignore_index=True)
