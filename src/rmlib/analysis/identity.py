"""Identity terms: where do words for groups of people fall in an RM's ranking, and how far is that from people's?

Items match an identity term by strict rules only (the term, its plural, 'term people', a listed noun form; never a
substring), ambiguous items are left out by default, and every score becomes a percentile within its model x prompt
so RMs with different scales compare; the gap is the RM's percentile minus the human one. The terms and their flags
are data (:func:`rmlib.data.identity_terms`).

The identity chapter reads two levels: EloEverything items that name a term, scored by the paper RMs
(:func:`identity_items`, :func:`item_verdicts`, :func:`gap_matrix`), and identity words among the dictionary words or
swept tokens of any model (:func:`identity_words`).
"""
from __future__ import annotations

import re
from typing import Iterable

import numpy as np
import pandas as pd

from rmlib.analysis.words import published_scores, token_scores, word_like_tokens
from rmlib.data import AMBIGUOUS_ITEMS, NOUN_FORMS, identity_terms, published_elo_scores, word_affect
from rmlib.stats import mean_with_ci, percentile_ranks, require_columns

__all__ = ["match_identity_items", "identity_elo_ranks", "identity_word_ranks", "token_word_scores", "flag",
           "identity_items", "item_verdicts", "gap_matrix", "axis_gaps", "identity_words", "words_summary",
           "axis_rows", "MIN_MODELS_FOR_CI"]

MIN_MODELS_FOR_CI = 3   # an interval over RMs needs at least this many RMs


def flag(term: str, pejorative: bool) -> str:
    """A term as the tables show it: '†' marks one that is pejorative in some uses."""
    return f"{term} †" if pejorative else term


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



def identity_items(models=None, *, include_ambiguous: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """EloEverything items that name an identity term, placed by the paper RMs and by people.

    Returns (per_item: item × term × RM label, percentiles and gap averaged over the 3 prompts; items: one row per
    item with the mean percentiles, the gap over RMs with a bootstrap CI, a display ``row`` and ``has_ci``). A
    percentile interval can miss a skewed mean by a hair with few RMs; the CI is widened to keep the mean inside.
    """
    elo = published_elo_scores(models)
    elo["label"] = elo["nickname"]
    matches = match_identity_items(elo["item"].unique(), include_ambiguous=include_ambiguous)
    ranks = identity_elo_ranks(elo, matches)
    per_item = ranks.groupby(["item", "term", "axis", "pejorative_in_some_uses", "label"], as_index=False)[
        ["model_pct", "human_pct", "gap"]].mean()
    item_ci = mean_with_ci(per_item, "gap", ["item"], cluster="label")
    items = per_item.groupby(["item", "term", "axis", "pejorative_in_some_uses"], as_index=False)[
        ["model_pct", "human_pct"]].mean().merge(item_ci.rename(columns={"mean": "gap"}), on="item")
    items["row"] = [flag(i, f) for i, f in zip(items["item"], items["pejorative_in_some_uses"])]
    items["has_ci"] = items["ci_low"].notna()
    items["ci_low"] = np.fmin(items["ci_low"], items["gap"])
    items["ci_high"] = np.fmax(items["ci_high"], items["gap"])
    return per_item, items


def item_verdicts(items: pd.DataFrame) -> dict:
    """The items reliably below (above) people for the RMs (interval over RMs entirely below / above zero), sorted,
    and the three largest negative gaps."""
    below = items[items["has_ci"] & (items["ci_high"] < 0)].sort_values("gap")
    above = items[items["has_ci"] & (items["ci_low"] > 0)].sort_values("gap", ascending=False)
    return {"below": below, "above": above, "worst": items.nsmallest(3, "gap")}


def gap_matrix(per_item: pd.DataFrame) -> pd.DataFrame:
    """Gap (RM − human percentile) per item (rows, flagged, by mean gap) and RM (columns)."""
    heat = per_item.assign(row=[flag(i, f) for i, f in zip(per_item["item"], per_item["pejorative_in_some_uses"])])\
        .pivot_table(index="row", columns="label", values="gap")
    return heat.loc[heat.mean(axis=1).sort_values().index]


def axis_gaps(per_item: pd.DataFrame) -> pd.DataFrame:
    """Mean gap per HolisticBias axis with a bootstrap CI over the items' terms (none with fewer than 3 terms)."""
    return mean_with_ci(per_item, "gap", ["axis"], cluster="term")


def identity_words(mode: str = "published", models=None, prompt_keys=None, tokens=None, *,
                   human_source: str = "warriner", include_ambiguous: bool = False, load=None) -> dict:
    """Identity terms among the scored words (published dictionary words, or word-like tokens of a sweep): where
    each model places them against the human valence norms of ``human_source``.

    Returns words (the scores read), ranks (:func:`identity_word_ranks`), table (per term × prompt valence, the mean
    percentiles and gap, with the spread over spellings for tokens), per_word (the same per model label), by_axis
    (mean gap per axis × prompt valence with a bootstrap CI over terms) and level (in words, for the page); table
    and by_axis are empty when no term is among the rated words.
    """
    if mode == "published":
        words = published_scores(models, prompt_keys)
        level = "word level (published dictionary scores)"
    elif mode == "compute":
        tok = token_scores(models, prompt_keys, tokens, load=load)
        words = token_word_scores(tok)
        kinds = tok.groupby("model")["reward_kind"].first()
        level = "token level (computed sweeps; " + "; ".join(f"{m} = {k}" for m, k in kinds.items()) + ")"
    else:
        raise ValueError(f"MODE must be 'published' or 'compute', not {mode!r}")
    wr = identity_word_ranks(words, human_source=human_source, include_ambiguous=include_ambiguous)
    out = {"words": words, "ranks": wr, "level": level, "table": pd.DataFrame(), "per_word": pd.DataFrame(),
           "by_axis": pd.DataFrame()}
    if wr.empty:
        return out
    group = ["word", "axis", "pejorative_in_some_uses", "prompt_valence"]
    per_word = wr.groupby(group + ["label"], as_index=False)[["model_pct", "human_pct", "gap"]].mean()
    table = per_word.groupby(group, as_index=False)[["model_pct", "human_pct", "gap"]].mean()
    if "n_variants" in wr:
        spread = wr.groupby(group, as_index=False).agg(n_variants=("n_variants", "max"),
                                                       token_pct_min=("token_pct_min", "min"),
                                                       token_pct_max=("token_pct_max", "max"))
        table = table.merge(spread, on=group)
    table["row"] = [f"{flag(w, f)} · {pv} prompts" for w, f, pv in
                    zip(table["word"], table["pejorative_in_some_uses"], table["prompt_valence"])]
    out.update(table=table, per_word=per_word,
               by_axis=mean_with_ci(per_word, "gap", ["axis", "prompt_valence"], cluster="word"))
    return out


def words_summary(words: dict, mode: str) -> dict:
    """The numbers the chapter keeps of :func:`identity_words` (a run with identity terms among its words)."""
    return {"level": "word" if mode == "published" else "token",
            "rows": words["table"].drop(columns=["row"]).to_dict(orient="records"),
            "by_axis": words["by_axis"].to_dict(orient="records"),
            "n_universe": int(words["ranks"]["n_universe"].median())}


def axis_rows(by_axis: pd.DataFrame) -> pd.DataFrame:
    """``by_axis`` of :func:`identity_words` for a dot-and-whisker chart: row (axis · prompts), gap, and a CI
    widened to keep the mean inside it."""
    ax = by_axis.assign(row=by_axis["axis"] + " · " + by_axis["prompt_valence"] + " prompts")
    ax["ci_low"], ax["ci_high"] = np.fmin(ax["ci_low"], ax["mean"]), np.fmax(ax["ci_high"], ax["mean"])
    return ax.rename(columns={"mean": "gap"})
