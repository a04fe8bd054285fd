"""Framing: does the prompt's valence change which words an RM is sensitive to? (FAccT 2025.)

Scores of valenced words are standardised within each model x prompt and *oriented* (sign-flipped under negative
prompts), then one regression per model gives four oriented valence slopes, {positive, negative} words x {positive,
negative} prompts, with standard errors clustered by word (:func:`framing_contrast`). The claim's two halves are
contrasts of those slopes, each with its own CI; :func:`framing_word_influence` splits each half exactly into the
contributions of single words.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import statsmodels.api as sm

from rmbook.analysis.choices import FRAMING_HALVES
from rmlib.data import word_affect
from rmlib.stats import cell_slopes
from rmlib.stats import require_columns, standardise

__all__ = ["framing_frame", "framing_cell_slopes", "framing_cell_counts", "framing_contrast",
           "FRAMING_HALVES", "framing_halves", "framing_halves_summary", "framing_word_influence", "influential_words",
           "dictionary_word_counts"]


def framing_frame(scores: pd.DataFrame, source: str = "afinn", response: str = "z") -> pd.DataFrame:
    """Words with a nonzero valence in ``source``, with the columns the framing analysis needs.

    Adds valence, word_side ('positive'|'negative' valence), y (score standardised within model x prompt over these
    words), oriented_y (y under positive prompts, -y under negative ones, so that 'agrees with the prompt' is up in
    both), congruent (the word's valence matches the prompt's).
    """
    require_columns(scores, ["model", "prompt_key", "prompt_valence", "word", "reward"], "scores")
    bad = set(scores["prompt_valence"].unique()) - {"positive", "negative"}
    if bad:
        raise ValueError(f"prompt_valence must be 'positive' or 'negative'; got {sorted(bad)}")
    v = word_affect(scores["word"], source, missing="nan").to_numpy()
    df = scores.assign(valence=v)
    df = df[df["valence"].notna() & (df["valence"] != 0)].copy()
    if df.empty:
        raise ValueError(f"no scored word has a nonzero {source} valence; check the word column")
    df["word_side"] = np.where(df["valence"] > 0, "positive", "negative")
    df["y"] = standardise(df, "reward", ("model", "prompt_key"), response)
    sign = np.where(df["prompt_valence"] == "positive", 1.0, -1.0)
    df["oriented_y"] = df["y"] * sign
    df["congruent"] = df["word_side"] == df["prompt_valence"]
    df["affect_source"] = source
    return df.reset_index(drop=True)


def framing_cell_slopes(ff: pd.DataFrame, min_n: int = 10) -> pd.DataFrame:
    """Slope of oriented_y on valence for each model x prompt x word side (rmlib.regression.cell_slopes, HC3 CIs).

    A positive oriented slope means the RM follows the prompt: higher valence pays under positive prompts, lower
    valence under negative ones. Cells with fewer than ``min_n`` words are skipped.
    """
    groups = ["model", "prompt_key", "prompt_valence", "word_side"]
    require_columns(ff, [*groups, "valence", "oriented_y"], "ff (from framing_frame)")
    sizes = ff.groupby(groups, observed=True)["valence"].agg(["size", "nunique"])
    keep = sizes[(sizes["size"] >= min_n) & (sizes["nunique"] >= 2)].index
    if len(keep) == 0:
        raise ValueError(f"no model x prompt x word-side cell has {min_n} words with varying valence")
    data = ff.set_index(groups).loc[keep].reset_index()
    return cell_slopes(data, y="oriented_y", x="valence", groups=groups, min_n=min_n)


def framing_cell_counts(cells: pd.DataFrame, label: str = "model") -> pd.DataFrame:
    """Prompt by prompt, which word side has the steeper oriented slope, from :func:`framing_cell_slopes`.

    Returns one row per model x prompt: label, prompt_key, prompt_valence, half ('pos_prompts'|'neg_prompts'),
    positive, negative (the two slopes), congruent_minus_incongruent (the slope of the words that share the
    prompt's valence minus the other: > 0 is the claimed direction), congruent_steeper (bool).
    """
    require_columns(cells, [label, "prompt_key", "prompt_valence", "word_side", "slope"], "cells")
    wide = cells.pivot_table(index=[label, "prompt_key", "prompt_valence"], columns="word_side", values="slope")
    wide = wide.dropna(subset=[c for c in ("positive", "negative") if c in wide.columns]).reset_index()
    if not {"positive", "negative"} <= set(wide.columns):
        raise ValueError("cells need slopes for both word sides")
    pos = wide["prompt_valence"] == "positive"
    wide["half"] = np.where(pos, "pos_prompts", "neg_prompts")
    wide["congruent_minus_incongruent"] = np.where(pos, wide["positive"] - wide["negative"],
                                                   wide["negative"] - wide["positive"])
    wide["congruent_steeper"] = wide["congruent_minus_incongruent"] > 0
    wide.columns.name = None
    return wide[[label, "prompt_key", "prompt_valence", "half", "positive", "negative",
                 "congruent_minus_incongruent", "congruent_steeper"]]


def framing_contrast(ff: pd.DataFrame, groups: Sequence[str] = ("model",), cluster: str | None = "word",
                     alpha: float = 0.05) -> pd.DataFrame:
    """The framing claim's two halves, and their pooled contrast, from four slopes per group.

    Fits ``oriented_y ~ C(prompt_key):C(word_side) + valence:C(cell)`` (cell = prompt valence x word side; an
    intercept per prompt and side, one valence slope per cell; statsmodels OLS after demeaning) with standard errors
    clustered by word, since every word recurs under every prompt. With s(words, prompts) the oriented slopes:

    * ``pos_prompts`` = s(+, +) - s(-, +): under positive prompts the RM is more sensitive to positive words (the
      first half of the claim);
    * ``neg_prompts`` = s(-, -) - s(+, -): under negative prompts it is more sensitive to negative words (the
      second half);
    * ``framing``     = their mean (= the mean of pos_words and neg_words): the pooled asymmetry. It is only a
      secondary number: halves of opposite sign cancel in it, so a value near 0 does not mean "no effect";
    * ``pos_words``   = s(+, +) - s(+, -) and ``neg_words`` = s(-, -) - s(-, +): the same words across prompts;
    * ``positivity``  = mean over prompts of s(+, .) - s(-, .) = (pos_prompts - neg_prompts) / 2: a fixed tilt toward
      positive words whatever the prompt. Halves of opposite sign are exactly this tilt.

    Returns *groups, the four slopes s_pp, s_pn, s_np, s_nn (first letter: word side, second: prompt valence) with
    _ci_low/_ci_high, then each contrast with _ci_low, _ci_high and _p; n rows, n_words.
    """
    groups = list(groups)
    require_columns(ff, [*groups, "prompt_key", "prompt_valence", "word_side", "valence", "oriented_y",
                         *([cluster] if cluster else [])], "ff (from framing_frame)")
    rows = []
    for key, g in (ff.groupby(groups, sort=False) if groups else [((), ff)]):
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(groups, key)), **_group_contrast(g, dict(zip(groups, key)), cluster, alpha)})
    return pd.DataFrame(rows)


# cell (word side, prompt valence) -> its slope's name; each contrast as weights on the four slopes
_CELLS = {("positive", "positive"): "s_pp", ("positive", "negative"): "s_pn",
          ("negative", "positive"): "s_np", ("negative", "negative"): "s_nn"}
_CONTRASTS = {"pos_prompts": {"s_pp": 1, "s_np": -1}, "neg_prompts": {"s_nn": 1, "s_pn": -1},
              "pos_words": {"s_pp": 1, "s_pn": -1}, "neg_words": {"s_nn": 1, "s_np": -1},
              "framing": {"s_pp": .5, "s_pn": -.5, "s_nn": .5, "s_np": -.5},
              "positivity": {"s_pp": .5, "s_pn": .5, "s_np": -.5, "s_nn": -.5}}


def _group_contrast(g: pd.DataFrame, group: dict, cluster: str | None, alpha: float) -> dict:
    """One group's four slopes and contrasts (:func:`framing_contrast`), with their CIs and p-values."""
    g = g.assign(cell=[_CELLS[(s, p)] for s, p in zip(g["word_side"], g["prompt_valence"])])
    counts = g.groupby("cell")["valence"].nunique()
    missing = [c for c in _CELLS.values() if counts.get(c, 0) < 2]
    if missing:
        raise ValueError(f"group {group}: cells {missing} lack words with varying valence; "
                         "the framing contrast needs positive and negative prompts and words of both signs")
    kw = {"cov_type": "cluster", "cov_kwds": {"groups": pd.factorize(g[cluster])[0]}} if cluster else \
        {"cov_type": "HC3"}
    # Frisch-Waugh-Lovell: sweeping out the prompt x side intercepts by demeaning gives the same slopes and
    # (up to the small-sample factor) the same clustered errors as fitting ~100 dummies, in a fraction of the time.
    within = g.groupby(["prompt_key", "word_side"], sort=False)
    design = pd.DataFrame({c: np.where(g["cell"] == c, g["valence"], 0.0) for c in _CELLS.values()}, index=g.index)
    design = design - design.groupby([g["prompt_key"], g["word_side"]]).transform("mean")
    yy = g["oriented_y"] - within["oriented_y"].transform("mean")
    res = sm.OLS(yy.to_numpy(), design, hasconst=False).fit(**kw)
    names = list(res.params.index)
    idx = {c: names.index(c) for c in _CELLS.values()}
    row, ci = {}, res.conf_int(alpha)
    for c, i in idx.items():
        row.update({c: float(res.params.iloc[i]), f"{c}_ci_low": float(ci.iloc[i, 0]),
                    f"{c}_ci_high": float(ci.iloc[i, 1])})
    for name, weights in _CONTRASTS.items():
        vec = np.zeros(len(names))
        for c, w in weights.items():
            vec[idx[c]] = w
        t = res.t_test(vec)
        lo, hi = np.asarray(t.conf_int(alpha)).ravel()
        row.update({name: float(np.squeeze(t.effect)), f"{name}_ci_low": float(lo), f"{name}_ci_high": float(hi),
                    f"{name}_p": float(np.squeeze(t.pvalue))})
    row.update(n=int(res.nobs), n_words=int(g["word"].nunique()) if "word" in g else None)
    return row


def framing_halves(contrast: pd.DataFrame, label: str = "model") -> pd.DataFrame:
    """Each model's verdict on the two halves of the framing claim, from :func:`framing_contrast`.

    Per row: pos_half / neg_half = 'holds' (95% CI above 0), 'reversed' (CI below 0) or 'unclear' (CI spans 0), and
    ``pattern``: 'both halves'; 'opposite signs' when one half holds and the other is reversed (a fixed tilt toward
    one kind of word, which the pooled contrast averages away); '<positive|negative>-prompt half only' (the other
    unclear); 'both reversed'; '<...>-prompt half reversed, the other unclear'; or 'neither (both unclear)'.
    """
    require_columns(contrast, [label, *(f"{h}{c}" for h in FRAMING_HALVES for c in ("", "_ci_low", "_ci_high"))])

    def state(lo, hi):
        return np.where(lo > 0, "holds", np.where(hi < 0, "reversed", "unclear"))

    pos = state(contrast["pos_prompts_ci_low"].to_numpy(), contrast["pos_prompts_ci_high"].to_numpy())
    neg = state(contrast["neg_prompts_ci_low"].to_numpy(), contrast["neg_prompts_ci_high"].to_numpy())
    pattern = np.select(
        [(pos == "holds") & (neg == "holds"), (pos == "holds") & (neg == "reversed"),
         (pos == "reversed") & (neg == "holds"), pos == "holds", neg == "holds",
         (pos == "reversed") & (neg == "reversed"), pos == "reversed", neg == "reversed"],
        ["both halves", "opposite signs", "opposite signs", "positive-prompt half only",
         "negative-prompt half only", "both reversed", "positive-prompt half reversed, the other unclear",
         "negative-prompt half reversed, the other unclear"], "neither (both unclear)")
    return pd.DataFrame({label: contrast[label].to_numpy(), "pos_half": pos, "neg_half": neg, "pattern": pattern,
                         "pos_prompts": contrast["pos_prompts"].to_numpy(),
                         "neg_prompts": contrast["neg_prompts"].to_numpy(),
                         "framing": contrast["framing"].to_numpy()})


def framing_halves_summary(halves: pd.DataFrame) -> dict:
    """Counts over models for :func:`framing_halves`: {pos_prompts: {holds, reversed, unclear, n}, neg_prompts:
    {...}, patterns: {pattern: count}, n}."""
    require_columns(halves, ["pos_half", "neg_half", "pattern"])
    out = {}
    for half, col in (("pos_prompts", "pos_half"), ("neg_prompts", "neg_half")):
        vc = halves[col].value_counts()
        out[half] = {k: int(vc.get(k, 0)) for k in ("holds", "reversed", "unclear")} | {"n": int(len(halves))}
    out["patterns"] = {k: int(v) for k, v in halves["pattern"].value_counts().items()}
    out["n"] = int(len(halves))
    return out


def framing_word_influence(ff: pd.DataFrame, groups: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Each word's share of the two framing halves: which words make a half positive or negative.

    In :func:`framing_contrast` each cell's slope is sum(x~ y~) / sum(x~^2) over that cell's rows, with valence and
    oriented score demeaned within prompt x word side (Frisch-Waugh-Lovell). A word's contribution to a slope is
    its own terms of that sum, so the contributions add up exactly to the slope, and to each half:
    pos_prompts = s(+,+) - s(-,+) gets +contribution from positive words and -contribution from negative words
    under positive prompts; neg_prompts = s(-,-) - s(+,-) the reverse under negative prompts.

    Returns *groups, half ('pos_prompts'|'neg_prompts'), word, word_side, valence, contribution, mean_y (the mean
    standardised reward of the word under that half's prompts: high = the RM's favoured answers to those prompts).
    """
    groups = list(groups)
    require_columns(ff, [*groups, "prompt_key", "prompt_valence", "word", "word_side", "valence", "oriented_y", "y"],
                    "ff (from framing_frame)")
    d = ff[[*groups, "prompt_key", "prompt_valence", "word", "word_side", "valence", "oriented_y", "y"]].copy()
    within = [*groups, "prompt_key", "word_side"]
    d["xt"] = d["valence"] - d.groupby(within)["valence"].transform("mean")
    d["yt"] = d["oriented_y"] - d.groupby(within)["oriented_y"].transform("mean")
    cell = [*groups, "prompt_valence", "word_side"]
    d["term"] = d["xt"] * d["yt"] / d.groupby(cell)["xt"].transform(lambda v: (v ** 2).sum())
    congruent = d["word_side"] == d["prompt_valence"]
    d["contribution"] = np.where(congruent, d["term"], -d["term"])
    d["half"] = np.where(d["prompt_valence"] == "positive", "pos_prompts", "neg_prompts")
    out = d.groupby([*groups, "half", "word", "word_side"], as_index=False, sort=False).agg(
        valence=("valence", "first"), contribution=("contribution", "sum"), mean_y=("y", "mean"))
    return out


def influential_words(influence: pd.DataFrame, n: int = 8, groups: Sequence[str] = ("model",)) -> pd.DataFrame:
    """The n words that pull each half down most and the n that push it up most, averaged over ``groups``.

    ``influence`` is :func:`framing_word_influence`. Returns half, direction ('pulls down'|'pushes up'), rank, word,
    word_side, valence, contribution (mean over groups: summed over all words it gives the mean half), mean_y.
    """
    require_columns(influence, ["half", "word", "word_side", "valence", "contribution", "mean_y", *groups])
    n_groups = influence[list(groups)].drop_duplicates().shape[0] if groups else 1
    avg = influence.groupby(["half", "word", "word_side"], as_index=False).agg(
        valence=("valence", "first"), contribution=("contribution", "sum"), mean_y=("mean_y", "mean"))
    avg["contribution"] = avg["contribution"] / n_groups
    parts = []
    for half, g in avg.groupby("half", sort=False):
        down = g.nsmallest(n, "contribution").assign(direction="pulls down")
        up = g.nlargest(n, "contribution").assign(direction="pushes up")
        for part in (down, up):
            parts.append(part.assign(rank=np.arange(1, len(part) + 1)))
    cols = ["half", "direction", "rank", "word", "word_side", "valence", "contribution", "mean_y"]
    return pd.concat(parts, ignore_index=True)[cols]


def dictionary_word_counts(scores: pd.DataFrame) -> dict:
    """Distinct words per dictionary group in :func:`published_word_scores` output: {'big2': n, 'mfd2': n,
    'both': n, 'total': n} ('big2'/'mfd2' count the words found in that dictionary only)."""
    require_columns(scores, ["word", "dictionary"])
    per = scores.drop_duplicates("word")["dictionary"].value_counts()
    return {k: int(per.get(k, 0)) for k in ("big2", "mfd2", "both")} | {"total": int(scores["word"].nunique())}

