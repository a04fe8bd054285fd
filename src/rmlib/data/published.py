"""The papers' released RM scores in the long shapes the chapters analyse, each row labelled by its reward kind.

* :func:`published_word_scores`: dictionary words (Big Two nouns + MFD2 terms) under the 54 prompts, one row per
  model x prompt x word (framing, mere exposure, identity terms);
* :func:`published_elo_scores`: EloEverything items under 3 prompts, with the human Elo ratings;
* :func:`published_value_scores`: one dictionary in the value-profile shape (Big Two and MFD2 chapters), the same
  shape :func:`rmbook.analysis.values.compute_value_scores` gives for fresh scores.

The reward column is ``reward`` everywhere, with ``reward_kind`` saying what it is (:mod:`rmlib.data.kinds`).
"""
from __future__ import annotations

from typing import Sequence

import pandas as pd

from rmlib.data.dictionary_scores import load_dictionary_scores
from rmlib.data.elo import load_elo
from rmlib.data.kinds import RM_SCORE, RM_SCORE_PUBLISHED
from rmlib.data.prompts import design_prompts
from rmlib.errors import as_list
from rmlib.registry import paper_rms

__all__ = ["DICTIONARIES", "DESIGN_COLUMNS", "published_word_scores", "published_elo_scores",
           "published_value_scores", "value_columns"]

DICTIONARIES = ("big2", "mfd2")
DESIGN_COLUMNS = ["prompt_key", "prompt", "adjective", "valence", "superlative", "phrasing"]


def _check_models(models, available, what: str) -> list:
    """``models`` (None: all of ``available``), refused when empty or when one has no published scores."""
    if models is None:
        return list(available)
    models = as_list(models, "models")
    unknown = [m for m in models if m not in set(available)]
    if unknown or not models:
        raise ValueError(f"models {unknown or models} have no published {what}; choose from {list(available)}")
    return models


def published_word_scores(models: Sequence[str] | None = None, prompt_keys: Sequence[str] | None = None
                          ) -> pd.DataFrame:
    """The paper RMs' rewards for the dictionary words (Big Two nouns + MFD2 terms) under the 54 prompts.

    Columns: level ('word'), model, nickname, reward_kind ('RM score'), prompt_key, prompt, prompt_valence, word,
    dictionary ('big2', 'mfd2' or 'both'), reward. Words in both dictionaries were scored in two runs whose scores
    differ slightly; they get the mean of the two and dictionary 'both'. (How many words each group holds is
    computed where it is shown: see :func:`rmbook.chapters.framing.analysis.dictionary_word_counts`.)
    """
    cols = ["model", "nickname", "prompt_key", "prompt", "valence", "word", "reward"]
    b = load_dictionary_scores("big2")[cols].assign(dictionary="big2")
    m = load_dictionary_scores("mfd2")[cols].assign(dictionary="mfd2")
    models = _check_models(models, b["model"].unique(), "dictionary scores")
    if prompt_keys is not None:
        bad = sorted(set(prompt_keys) - set(b["prompt_key"]))
        if bad:
            raise ValueError(f"prompt keys {bad} are not among the 54 prompts, "
                             f"e.g. {sorted(b['prompt_key'].unique())[:4]}")
    keys = ["model", "prompt_key", "word"]
    shared = set(b["word"].unique()) & set(m["word"].unique())
    twice = b[b["word"].isin(shared)].merge(m.loc[m["word"].isin(shared), keys + ["reward"]], on=keys,
                                           suffixes=("", "_mfd2"), validate="one_to_one")
    twice = twice.assign(reward=(twice["reward"] + twice.pop("reward_mfd2")) / 2, dictionary="both")
    out = pd.concat([b[~b["word"].isin(shared)], twice, m[~m["word"].isin(shared)]], ignore_index=True)
    out = out[out["model"].isin(models)]
    if prompt_keys is not None:
        out = out[out["prompt_key"].isin(as_list(prompt_keys, "prompt_keys"))]
    out = out.rename(columns={"valence": "prompt_valence"})
    out.insert(0, "level", "word")
    out.insert(3, "reward_kind", RM_SCORE)
    return out[["level", "model", "nickname", "reward_kind", "prompt_key", "prompt", "prompt_valence", "word",
                "dictionary", "reward"]].reset_index(drop=True)


def published_elo_scores(models: Sequence[str] | None = None) -> pd.DataFrame:
    """The paper RMs' rewards for the EloEverything items under 3 prompts, with the human Elo ratings.

    Columns: level ('word': items are whole answers, often several words), model, nickname, reward_kind, prompt_key,
    prompt, item, reward, elo_score, elo_rank, elo_matches.
    """
    long = load_elo("long")
    models = _check_models(models, long["model"].unique(), "EloEverything scores")
    out = long[long["model"].isin(models)].assign(level="word", reward_kind=RM_SCORE)
    out = out.merge(paper_rms().rename(columns={"id": "model"})[["model", "nickname"]], on="model", how="left")
    return out[["level", "model", "nickname", "reward_kind", "prompt_key", "prompt", "item", "reward", "elo_score",
                "elo_rank", "elo_matches"]].reset_index(drop=True)


def value_columns(df: pd.DataFrame, dictionary: str) -> pd.DataFrame:
    """``df`` in the value-profile column order: model, nickname, family, reward_kind, the design columns, word,
    category [, foundation, moral], reward [, n_tokens]."""
    word_cols = ["word", "category"] + (["foundation", "moral"] if dictionary == "mfd2" else [])
    cols = ["model", "nickname", "family", "reward_kind", *DESIGN_COLUMNS, *word_cols, "reward"]
    cols += [c for c in ("n_tokens",) if c in df.columns]
    return df[cols].reset_index(drop=True)


def published_value_scores(dictionary: str = "big2", models: Sequence[str] | None = None,
                           prompt_keys: Sequence[str] | None = None) -> pd.DataFrame:
    """The authors' released RM rewards in the long value-profile shape (reward_kind 'RM score (published)')."""
    if dictionary not in DICTIONARIES:
        raise ValueError(f"dictionary must be one of {DICTIONARIES}, not {dictionary!r}")
    df = load_dictionary_scores(dictionary)
    models = _check_models(models, sorted(df["model"].unique()), f"{dictionary} scores")
    df = df[df["model"].isin(models)]
    if prompt_keys is not None:
        keys = design_prompts(prompt_keys)["prompt_key"]
        df = df[df["prompt_key"].isin(keys)]
    if dictionary == "mfd2":  # the loader's category is already <foundation>.<moral>
        df = df.dropna(subset=["category"])
    return value_columns(df.assign(reward_kind=RM_SCORE_PUBLISHED), dictionary)
