"""Identity terms: where do words for groups of people fall in an RM's ranking, and how far is that from people's?

Items match an identity term by strict rules only (the term, its plural, 'term people', a listed noun form; never a
substring), ambiguous items are left out by default, and every score becomes a percentile within its model x prompt
so RMs with different scales compare; the gap is the RM's percentile minus the human one. The terms and their flags
are data (:func:`rmlib.data.identity_terms`).

The identity chapter reads two levels: EloEverything items that name a term, scored by the paper RMs
(:func:`identity_items`, :func:`item_verdicts`, :func:`gap_matrix`), and identity words among the dictionary words or
swept tokens of any model (:func:`identity_words`). The chapter's results type is
:mod:`rmbook.chapters.identity_terms.results`.

**Regression to the mean.** An RM that agrees with people only in part (Spearman ρ ≈ .35 here) places the items
people rank highest lower than people do, and the lowest higher, whatever the items are: an item at the 95th human
percentile gets a gap of about −30 points from such a ranker by chance alone. So a gap is read against the gap
*expected at its human rank*: :func:`expected_gaps` takes, for each RM, the mean gap of all EloEverything items in the
same bin of the human percentile (:data:`HUMAN_BINS` equal-width bins, 5 points each), and the **excess** of an item
is its gap minus that expectation. Verdicts rest on the excess (interval over RMs, as for the gap); the raw gap and
its counts are kept beside it. Bins of 5 points leave ~375 items per bin (a bin mean within ~1.5 points) while the
expected gap, which changes by about (1 − ρ) points per human percentile point, moves by only ±1.6 points inside a
bin; deciles would double that bias at the ends of the scale, where most identity items sit.
"""
from __future__ import annotations

import re
from typing import Iterable

import numpy as np
import pandas as pd

from rmbook.analysis import beside
from rmbook.analysis.terms import flag  # re-exported: the chapter's tables and the value card show terms alike
from rmbook.analysis.words import MODES, published_scores, token_scores, word_like_tokens
from rmlib.data import AMBIGUOUS_ITEMS, NOUN_FORMS, identity_terms, published_elo_scores, word_affect
from rmlib.stats import mean_with_ci, percentile_ranks, require_columns

__all__ = ["gaps_by_label", "beside_paper_rms", "MODES", "HUMAN_BINS", "elo_gaps", "human_bin", "expected_gaps", "match_identity_items", "identity_elo_ranks", "identity_word_ranks", "token_word_scores", "flag",
           "identity_items", "item_verdicts", "verdicts_summary", "bin_sensitivity", "gap_matrix", "axis_gaps", "identity_words",
           "axis_rows", "MIN_MODELS_FOR_CI"]

MIN_MODELS_FOR_CI = 3   # an interval over RMs needs at least this many RMs
HUMAN_BINS = 20         # equal-width bins of the human percentile for the expected gap (5 points each)


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


def elo_gaps(elo: pd.DataFrame) -> pd.DataFrame:
    """Every item's percentiles within its model x prompt (100 = top): model_pct from the RM's score, human_pct from
    the Elo score, gap = model_pct - human_pct (positive: the RM places the item higher than people do)."""
    require_columns(elo, ["model", "prompt_key", "item", "reward", "elo_score"], "elo")
    d = elo.dropna(subset=["reward", "elo_score"]).copy()
    d["model_pct"] = percentile_ranks(d, "reward")
    d["human_pct"] = percentile_ranks(d, "elo_score")
    d["gap"] = d["model_pct"] - d["human_pct"]
    return d


def identity_elo_ranks(elo: pd.DataFrame, matches: pd.DataFrame) -> pd.DataFrame:
    """Where matched identity items sit among all EloEverything items, for each RM and for people.

    ``elo`` is :func:`published_elo_scores`; ``matches`` is :func:`match_identity_items`. Percentiles are taken over
    every item of the prompt (:func:`elo_gaps`). One row per model x prompt x matched (item, term).
    """
    require_columns(matches, ["item", "term"], "matches")
    return elo_gaps(elo).merge(matches, on="item", how="inner")


def human_bin(human_pct: pd.Series, bins: int = HUMAN_BINS) -> pd.Series:
    """Equal-width bin 1..``bins`` of a human percentile in (0, 100] (the top item is in the top bin)."""
    if bins < 1:
        raise ValueError(f"bins must be >= 1, got {bins}")
    return pd.Series(np.clip(np.ceil(np.asarray(human_pct, float) * bins / 100.0), 1, bins).astype(int),
                     index=getattr(human_pct, "index", None))


def expected_gaps(gaps: pd.DataFrame, bins: int = HUMAN_BINS, by: str = "label") -> pd.DataFrame:
    """The gap expected from each RM (``by``) at each human rank: the mean gap of all items in a human-percentile bin
    (:func:`human_bin`), items first averaged over prompts as the identity items are. This is what regression to the
    mean alone gives an item of that human rank, since the items of a bin are almost all not identity items.
    Returns by, human_bin, expected_gap, n_bin_items."""
    require_columns(gaps, ["item", by, "human_pct", "gap"], "gaps")
    per = gaps.groupby([by, "item"], as_index=False)[["human_pct", "gap"]].mean()
    per["human_bin"] = human_bin(per["human_pct"], bins).to_numpy()
    return per.groupby([by, "human_bin"], as_index=False).agg(expected_gap=("gap", "mean"),
                                                               n_bin_items=("gap", "size"))


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



def identity_items(models=None, *, include_ambiguous: bool = False, bins: int = HUMAN_BINS,
                   elo: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """EloEverything items that name an identity term, placed by the paper RMs and by people, and compared with the
    gap that items of the same human rank get (:func:`expected_gaps`).

    Returns (per_item: item × term × RM label, percentiles, gap, expected_gap and excess = gap − expected_gap,
    averaged over the 3 prompts; items: one row per item with the mean percentiles, the gap and the excess over RMs
    each with a t interval over the RMs (:func:`rmlib.stats.mean_ci`, which holds over ten RMs where a bootstrap is too
    narrow: ci_low/ci_high for the gap, excess_ci_low/excess_ci_high), a display ``row`` and ``has_ci``). Each CI is
    kept around its mean (a t interval always is; a percentile one could miss a skewed mean by a hair). ``elo`` (the shape of :func:`published_elo_scores` with a ``label``) replaces the published
    scores, for tests.
    """
    if elo is None:
        elo = published_elo_scores(models)
        elo["label"] = elo["nickname"]
    gaps = elo_gaps(elo)
    matches = match_identity_items(gaps["item"].unique(), include_ambiguous=include_ambiguous)
    ranks = gaps.merge(matches, on="item", how="inner")
    per_item = ranks.groupby(["item", "term", "axis", "pejorative_in_some_uses", "label"], as_index=False)[
        ["model_pct", "human_pct", "gap"]].mean()
    per_item["human_bin"] = human_bin(per_item["human_pct"], bins).to_numpy()
    per_item = per_item.merge(expected_gaps(gaps, bins)[["label", "human_bin", "expected_gap"]],
                              on=["label", "human_bin"], how="left")
    per_item["excess"] = per_item["gap"] - per_item["expected_gap"]
    item_ci = mean_with_ci(per_item, "gap", ["item"], cluster="label")
    excess_ci = mean_with_ci(per_item, "excess", ["item"], cluster="label").rename(
        columns={"mean": "excess", "ci_low": "excess_ci_low", "ci_high": "excess_ci_high"}).drop(columns="n")
    items = (per_item.groupby(["item", "term", "axis", "pejorative_in_some_uses"], as_index=False)[
        ["model_pct", "human_pct", "expected_gap"]].mean()
        .merge(item_ci.rename(columns={"mean": "gap"}), on="item").merge(excess_ci, on="item"))
    items["row"] = [flag(i, f) for i, f in zip(items["item"], items["pejorative_in_some_uses"])]
    items["has_ci"] = items["ci_low"].notna() & items["excess_ci_low"].notna()
    for mean, lo, hi in (("gap", "ci_low", "ci_high"), ("excess", "excess_ci_low", "excess_ci_high")):
        items[lo], items[hi] = np.fmin(items[lo], items[mean]), np.fmax(items[hi], items[mean])
    return per_item, items


def item_verdicts(items: pd.DataFrame) -> dict:
    """The items reliably below (above) what their human rank leads one to expect (interval over RMs of the excess
    entirely below / above zero): ``below`` and ``above``, the verdicts the chapter draws, sorted by excess. Beside
    them ``raw_below`` / ``raw_above``, the same against zero on the raw gap, which regression to the mean inflates
    at the ends of the human ranking; and the three largest negative excesses (``worst``)."""
    below = items[items["has_ci"] & (items["excess_ci_high"] < 0)].sort_values("excess")
    above = items[items["has_ci"] & (items["excess_ci_low"] > 0)].sort_values("excess", ascending=False)
    raw_below = items[items["has_ci"] & (items["ci_high"] < 0)].sort_values("gap")
    raw_above = items[items["has_ci"] & (items["ci_low"] > 0)].sort_values("gap", ascending=False)
    return {"below": below, "above": above, "raw_below": raw_below, "raw_above": raw_above,
            "worst": items.nsmallest(3, "excess")}


def verdicts_summary(items: pd.DataFrame, verdicts: dict, enough: bool, bins: int = HUMAN_BINS) -> dict:
    """The counts the chapter keeps: n_below / n_above on the excess over the expected gap (the verdict), and the
    raw counts against zero (n_below_raw / n_above_raw); None without enough RMs for an interval."""
    count = lambda k: int(len(verdicts[k])) if enough else None
    return {"n_items": int(len(items)), "n_below": count("below"), "n_above": count("above"),
            "n_below_raw": count("raw_below"), "n_above_raw": count("raw_above"), "human_bins": int(bins),
            "baseline": f"mean gap of all EloEverything items in the same human-percentile bin ({bins} bins of "
                        f"{100 / bins:g} points), per RM"}


def bin_sensitivity(models=None, *, bins=(10, 20), include_ambiguous: bool = False,
                    elo: pd.DataFrame | None = None) -> dict:
    """The adjusted counts (n_below, n_above) with other numbers of human-percentile bins, so the page can show
    that the verdict does not hang on the bin width: {bins: {"n_below": k, "n_above": k}}."""
    out = {}
    for b in bins:
        _, it = identity_items(models, include_ambiguous=include_ambiguous, bins=b, elo=elo)
        v = item_verdicts(it)
        out[int(b)] = {"n_below": int(len(v["below"])), "n_above": int(len(v["above"]))}
    return out


def gap_matrix(per_item: pd.DataFrame, value: str = "gap") -> pd.DataFrame:
    """Gap (RM − human percentile), or another per-item ``value`` such as the excess over the expected gap, per item
    (rows, flagged, by mean) and RM (columns)."""
    heat = per_item.assign(row=[flag(i, f) for i, f in zip(per_item["item"], per_item["pejorative_in_some_uses"])])\
        .pivot_table(index="row", columns="label", values=value)
    return heat.loc[heat.mean(axis=1).sort_values().index]


def axis_gaps(per_item: pd.DataFrame) -> pd.DataFrame:
    """Mean gap per HolisticBias axis with a t interval over the items' terms (none with fewer than 3 terms)."""
    return mean_with_ci(per_item, "gap", ["axis"], cluster="term")


def identity_words(mode: str = "published", models=None, prompt_keys=None, tokens=None, *,
                   human_source: str = "warriner", include_ambiguous: bool = False, load=None) -> dict:
    """Identity terms among the scored words (published dictionary words, or word-like tokens of a sweep): where
    each model places them against the human valence norms of ``human_source``.

    Returns words (the scores read), ranks (:func:`identity_word_ranks`), table (per term × prompt valence, the mean
    percentiles and gap, with the spread over spellings for tokens), per_word (the same per model label), by_axis
    (mean gap per axis × prompt valence with a t interval over terms) and level (in words, for the page); table
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


def axis_rows(by_axis: pd.DataFrame) -> pd.DataFrame:
    """``by_axis`` of :func:`identity_words` for a dot-and-whisker chart: row (axis · prompts), gap, and a CI
    widened to keep the mean inside it."""
    ax = by_axis.assign(row=by_axis["axis"] + " · " + by_axis["prompt_valence"] + " prompts")
    ax["ci_low"], ax["ci_high"] = np.fmin(ax["ci_low"], ax["mean"]), np.fmax(ax["ci_high"], ax["mean"])
    return ax.rename(columns={"mean": "gap"})


def gaps_by_label(word_scores: pd.DataFrame, human_source: str = "warriner",
                  include_ambiguous: bool = False) -> pd.DataFrame:
    """Each model's mean gap (model − human percentile, :func:`identity_word_ranks`) over the identity terms among
    its scored words, per prompt valence: label, measure ("positive prompts", "negative prompts"), estimate, n_words
    (the identity words it rests on)."""
    wr = identity_word_ranks(word_scores, human_source=human_source, include_ambiguous=include_ambiguous)
    if wr.empty:
        return pd.DataFrame(columns=["label", "measure", "estimate"])
    mean = wr.groupby(["label", "prompt_valence"], as_index=False).agg(gap=("gap", "mean"), n_words=("word", "nunique"))
    return pd.DataFrame({"label": mean["label"], "measure": mean["prompt_valence"] + " prompts",
                         "estimate": mean["gap"], "n_words": mean["n_words"]})


def beside_paper_rms(word_scores: pd.DataFrame, human_source: str = "warriner", include_ambiguous: bool = False) -> dict:
    """Compute mode: each computed model's mean identity-word gap placed among the paper RMs' on the same prompt
    wordings and the same words (:func:`rmbook.analysis.beside.beside_words`; the percentiles are taken within those
    shared words, for both). The paper RMs' released words are dictionary words, few of which name groups of people:
    the section says on how many words each placement rests."""
    return beside.beside_words(word_scores, lambda frame: gaps_by_label(frame, human_source, include_ambiguous))
