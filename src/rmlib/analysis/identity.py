"""Identity terms: where do words for groups of people fall in an RM's ranking, and how far is that from people's?

Items match an identity term by strict rules only (the term, its plural, 'term people', a listed noun form; never a
substring), ambiguous items are left out by default, and every score becomes a percentile within its model x prompt
so RMs with different scales compare; the gap is the RM's percentile minus the human one. The terms and their flags
are data (:func:`rmlib.data.identity_terms`).
"""
from __future__ import annotations

import re
from typing import Iterable

import numpy as np
import pandas as pd

from rmlib.analysis.words import word_like_tokens
from rmlib.data import AMBIGUOUS_ITEMS, NOUN_FORMS, identity_terms, word_affect
from rmlib.stats import percentile_ranks, require_columns

__all__ = ["match_identity_items", "identity_elo_ranks", "identity_word_ranks", "token_word_scores"]


def _norm_item(s: str) -> str:
    return re.sub(r"\s*\([^)]*\)\s*$", "", str(s)).strip().lower()


def match_identity_items(items: Iterable[str], terms: pd.DataFrame | None = None,
                         include_ambiguous: bool = False) -> pd.DataFrame:
    """Which items (EloEverything titles, dictionary words) name an identity term, by strict rules only.

    An item matches a term when, lowercased and without a trailing '(...)', it equals the term, the term + 's',
    'term people', or a listed noun form (NOUN_FORMS: 'christian' -> 'christianity'). No substring matching: 'Black
    hole' is not about people. Items listed in AMBIGUOUS_ITEMS are dropped unless ``include_ambiguous``.
    Returns item, term, rule, ambiguous (the reason, or ''), plus the term's columns from identity_terms().
    """
    terms = identity_terms() if terms is None else terms
    require_columns(terms, ["term"], "terms")
    forms: dict[str, list[tuple[str, str]]] = {}
    for t in terms["term"]:
        for form, rule in [(t, "exact"), (t + "s", "plural"), (t + " people", "'people'")] + \
                [(f, "noun form") for f in NOUN_FORMS.get(t, ())]:
            forms.setdefault(form, []).append((t, rule))
    rows = []
    for item in dict.fromkeys(items):
        key = _norm_item(item)
        if key in AMBIGUOUS_ITEMS and not include_ambiguous:
            continue
        for t, rule in forms.get(key, []):
            rows.append((item, t, rule, AMBIGUOUS_ITEMS.get(key, "")))
    m = pd.DataFrame(rows, columns=["item", "term", "rule", "ambiguous"])
    return m.merge(terms, on="term", how="left")


def identity_elo_ranks(elo: pd.DataFrame, matches: pd.DataFrame) -> pd.DataFrame:
    """Where matched identity items sit among all EloEverything items, for each RM and for people.

    ``elo`` is :func:`published_elo_scores`; ``matches`` is :func:`match_identity_items`. Percentiles are taken over
    every item of the prompt (100 = top): model_pct from the RM's score, human_pct from the Elo score, gap =
    model_pct - human_pct (positive: the RM places the item higher than people do). One row per model x prompt x
    matched (item, term).
    """
    require_columns(elo, ["model", "prompt_key", "item", "reward", "elo_score"], "elo")
    require_columns(matches, ["item", "term"], "matches")
    d = elo.dropna(subset=["reward", "elo_score"]).copy()
    d["model_pct"] = percentile_ranks(d, "reward")
    d["human_pct"] = percentile_ranks(d, "elo_score")
    d["gap"] = d["model_pct"] - d["human_pct"]
    return d.merge(matches, on="item", how="inner")


def identity_word_ranks(word_scores: pd.DataFrame, terms: pd.DataFrame | None = None,
                        human_source: str = "warriner", include_ambiguous: bool = False) -> pd.DataFrame:
    """Where identity terms sit among scored words, for each model and in human valence norms.

    The universe is the scored words that ``human_source`` rates (so both rankings cover the same words).
    model_pct: percentile of the score within model x prompt (100 = top); human_pct: percentile of the human valence,
    flipped under negative prompts (a 'worst thing' question puts unpleasant words on top); gap = model_pct -
    human_pct. Returns the rows of identity terms only (without AMBIGUOUS_ITEMS unless ``include_ambiguous``), with
    the term columns; the universe size is in ``n_universe``.
    """
    require_columns(word_scores, ["model", "prompt_key", "prompt_valence", "word", "reward"], "word_scores")
    terms = identity_terms() if terms is None else terms
    d = word_scores.assign(word=word_scores["word"].str.lower())
    d = d.assign(human_valence=word_affect(d["word"], human_source, missing="nan").to_numpy())
    d = d.dropna(subset=["human_valence", "reward"])
    d["model_pct"] = percentile_ranks(d, "reward", item="word")
    hp = percentile_ranks(d, "human_valence", item="word")
    d["human_pct"] = np.where(d["prompt_valence"] == "negative", 100.0 - hp, hp)
    d["gap"] = d["model_pct"] - d["human_pct"]
    d["n_universe"] = d.groupby(["model", "prompt_key"])["word"].transform("size")
    out = d.merge(terms, left_on="word", right_on="term", how="inner")
    return out if include_ambiguous else out[~out["word"].isin(AMBIGUOUS_ITEMS)].reset_index(drop=True)


def token_word_scores(token_scores: pd.DataFrame) -> pd.DataFrame:
    """Token sweeps as word scores: every word-like token (text after :func:`rmlib.data.normalise_token`) grouped
    with the other tokens that spell the same word (' Gay', 'gay', 'GAY').

    Returns model, reward_kind, prompt_key, prompt_valence, word, reward (mean over the variants), n_variants,
    token_pct_min / token_pct_max (the lowest and highest percentile of a single variant among all word-like tokens
    of that model x prompt): a wide range warns that one spelling alone would tell a different story.
    """
    require_columns(token_scores, ["model", "prompt_key", "prompt_valence", "text", "reward"], "token_scores")
    d = word_like_tokens(token_scores)
    d["token_pct"] = percentile_ranks(d, "reward", item="word")
    keys = [k for k in ["level", "model", "label", "reward_kind", "prompt_key", "prompt", "prompt_valence", "word"]
            if k in d.columns]
    return d.groupby(keys, as_index=False, sort=False).agg(
        reward=("reward", "mean"), n_variants=("reward", "size"), token_pct_min=("token_pct", "min"),
        token_pct_max=("token_pct", "max"))

