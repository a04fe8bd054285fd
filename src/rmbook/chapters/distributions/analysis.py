"""Score distributions: what kind of token sits in each tail, and which tokens can be compared across tokenizers.

* :func:`tail_composition` compares category shares in the top-k and bottom-k answers with the whole set (Wilson CIs
  from statsmodels), so "the bottom tail is mostly sub-word junk" becomes a number with an interval.
* :func:`shared_vocabulary` aligns sweeps of models with different tokenizers on the decoded text both vocabularies
  contain, which is the only item set on which their rankings can be correlated.

The distributions chapter reads each model's rewards over a set of answers (:func:`answer_runs`: published
EloEverything items and/or token sweeps), then their shape (:func:`shape_statistics`), what fills each tail
(:func:`tail_compositions`) and which token features separate the tails (:func:`token_feature_tails`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.analysis.categories import item_categories, token_features
from rmbook.analysis.choices import ANY_MODE
from rmbook.analysis.words import shared_vocabulary, vocabulary_overlap  # re-exported: heterogeneity uses them too
from rmlib import engine
from rmlib.data import RM_SCORE_PUBLISHED, elo_items, elo_models, prompt_text
from rmlib.errors import as_list
from rmlib.registry import get_spec
from rmlib.stats import moments, proportion_ci, require_columns, tail_asymmetry, tail_comparison

__all__ = ["tail_composition", "shared_vocabulary", "vocabulary_overlap", "MODES", "ANSWER_KIND", "answer_runs",
           "tail_size", "shape_statistics", "tail_compositions", "token_feature_tails"]

MODES = ANY_MODE
ANSWER_KIND = "kind of answer"   # the feature column of every run: an item's form or a token's category
TOKEN_FEATURES = ["is_word", "leading_space", "capitalised", "n_chars"]


def tail_composition(df: pd.DataFrame, value: str = "reward", k: int = 100, feature: str = "category",
                     by: str | None = None, confidence: float = 0.95) -> pd.DataFrame:
    """Share of each ``feature`` value among the top-k, the bottom-k and all tokens (per ``by`` group).

    Columns: [by], tail (top|bottom|all), value, n, count, share, ci_low, ci_high, lift (share / share in all).
    CIs are Wilson intervals (:func:`rmlib.stats.proportion_ci`). The 'all' row is the baseline a tail should be
    read against.
    """
    require_columns(df, [value, feature] + ([by] if by else []), "df")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    groups = df.groupby(by, sort=False, observed=True) if by else [(None, df)]
    rows = []
    for key, g in groups:
        g = g.dropna(subset=[value])
        if len(g) < 2 * k:
            raise ValueError(f"{by}={key!r} has {len(g)} scored rows, fewer than 2k = {2 * k}; lower k")
        values = list(g[feature].cat.categories) if isinstance(g[feature].dtype, pd.CategoricalDtype) \
            else sorted(g[feature].dropna().unique().tolist())
        parts = {"top": g.nlargest(k, value), "bottom": g.nsmallest(k, value), "all": g}
        base = g[feature].value_counts(normalize=True)
        for tail, part in parts.items():
            counts = part[feature].value_counts()
            for v in values:
                c = int(counts.get(v, 0))
                lo, hi = proportion_ci(c, len(part), alpha=1 - confidence)
                share = c / len(part)
                b = float(base.get(v, 0.0))
                rows.append({**({by: key} if by else {}), "tail": tail, "value": v, "n": len(part), "count": c,
                             "share": share, "ci_low": float(lo), "ci_high": float(hi),
                             "lift": share / b if b > 0 else np.nan})
    return pd.DataFrame(rows)

def _published_answers(prompt_key: str, n_items: int | None, models) -> pd.DataFrame:
    models = elo_models(models)
    d = elo_items(prompt_key, n_items)
    long = d.melt(id_vars=["item"], value_vars=models, var_name="model", value_name="reward")
    long = long.merge(item_categories(d["item"])[["item", "form"]], on="item").rename(
        columns={"item": "text", "form": ANSWER_KIND})
    return long.assign(reward_kind=RM_SCORE_PUBLISHED)


def _computed_answers(models, prompt_key: str, tokens, load) -> pd.DataFrame:

    models = as_list(models or [], "models")
    if not models:
        raise ValueError("compute mode needs MODELS, e.g. ['smollm2-135m-instruct']")
    sweeps = engine.token_rewards_many(models, [prompt_text(prompt_key)], tokens=engine.token_range(tokens), load=load)
    return token_features(sweeps).rename(columns={"category": ANSWER_KIND})


def answer_runs(mode: str = "published", *, published_models=None, prompt_key: str = "greatest",
                n_items: int | None = None, models=(), compute_prompt_key: str = "greatest", tokens=None,
                load=None) -> dict[str, pd.DataFrame]:
    """Each model's rewards over a set of answers, by run: ``published`` (the paper RMs' scores of EloEverything
    items under one prompt, spread over the human ranking) and/or ``compute`` (token sweeps of ``models``).

    Long frames: model (its nickname where it has one), text, reward, reward_kind, ``kind of answer`` (an item's
    form or a token's category) and, for tokens, the token features of
    :func:`rmbook.analysis.categories.token_features`.
    """
    if mode not in MODES:
        raise ValueError(f"mode={mode!r}: use one of {MODES}")
    runs = {}
    if mode in ("published", "both"):
        runs["published"] = _published_answers(prompt_key, n_items, published_models)
    if mode in ("compute", "both"):
        runs["compute"] = _computed_answers(models, compute_prompt_key, tokens, load)
    for df in runs.values():
        df["model"] = df["model"].map({m: get_spec(m).nickname or m for m in df["model"].unique()})
    return runs


def tail_size(df: pd.DataFrame, k: int) -> int:
    """``k``, or less when a model has fewer than ``2k`` answers (a tail is at most half of them)."""
    return min(k, int(df.groupby("model").size().min() // 2))


def shape_statistics(runs: dict[str, pd.DataFrame], *, n_resamples: int = 999) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per run and model, the moments (:func:`rmlib.stats.moments`) and the 1% tail asymmetry
    (:func:`rmlib.stats.tail_asymmetry`) of the rewards, with bootstrap CIs; ``model_run`` labels the rows."""
    mom_rows, asym_rows = [], []
    for name, df in runs.items():
        for m, g in df.groupby("model", sort=False):
            mom_rows.append(moments(g["reward"].to_numpy(), n_resamples=n_resamples).assign(run=name, model=m))
            asym_rows.append({"run": name, "model": m, **tail_asymmetry(g["reward"].to_numpy(), q=0.01,
                                                                       n_resamples=n_resamples)})
    mom, asym = pd.concat(mom_rows, ignore_index=True), pd.DataFrame(asym_rows)
    for frame in (mom, asym):
        frame["model_run"] = frame["model"] + " · " + frame["run"]
    return mom, asym


def tail_compositions(runs: dict[str, pd.DataFrame], k: int) -> dict[str, pd.DataFrame]:
    """:func:`tail_composition` of every run by model, on the kind of answer (tails of :func:`tail_size`)."""
    return {name: tail_composition(df, k=tail_size(df, k), feature=ANSWER_KIND, by="model")
            for name, df in runs.items()}


def token_feature_tails(tokens: pd.DataFrame, k: int, *, n_resamples: int = 999) -> pd.DataFrame:
    """Per model, how the top and bottom tails of a token sweep differ in whole words, leading spaces, capitals and
    length (:func:`rmlib.stats.tail_comparison`)."""
    df = tokens.assign(is_word=tokens[ANSWER_KIND] == "word")
    k = tail_size(df, k)
    return pd.concat([tail_comparison(g, TOKEN_FEATURES, "reward", k=k, n_resamples=n_resamples).assign(model=m)
                      for m, g in df.groupby("model", sort=False)], ignore_index=True)
