"""Mere exposure: do reward models prefer frequent words? (FAccT 2025.)

For every model x prompt cell, ``z(reward) ~ zipf + valence`` (statsmodels, HC3); the share of cells with a
positive frequency slope is compared with a shuffled-frequency baseline (cells share their words, so the same
shuffle goes through every cell). Three ways of matching a word to a count run side by side (exact BNC form, BNC
lemma totals, wordfreq), and the claim is finally tested at the unit it is about: one slope per model and prompt
valence, pooled over prompts, with standard errors clustered by word (:func:`pooled_frequency_slopes`).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from rmbook.analysis.words import word_like_tokens
from rmlib import engine
from rmlib.data import frequency_table, word_affect
from rmlib.registry import reference_lm
from rmlib.stats import (cell_slopes, compare_to_baseline, require_columns, share_positive, shuffled_share_baseline,
                         slope_difference, standardise)

__all__ = ["exposure_frame", "token_exposure_frame", "attach_reference_logprob", "FREQUENCY_LABELS",
           "exposure_cells", "exposure_shares", "exposure_by_group", "pooled_frequency_slopes"]


def exposure_frame(scores: pd.DataFrame, valence_source: str = "afinn", response: str = "z",
                   item: str = "word") -> pd.DataFrame:
    """Scores joined with both frequency sources and a valence covariate, for ``y ~ zipf + valence`` per cell.

    Adds valence (AFINN with unlisted words as 0, as AFINN scoring does; other sources leave them missing),
    zipf_bnc, zipf_wordfreq, and y (score standardised within model x prompt). Rows keep NaN where a source has no
    frequency; drop per source before regressing.
    """
    require_columns(scores, ["model", "prompt_key", item, "reward"], "scores")
    words = scores[item].astype(str)
    freq = frequency_table(words.str.lower().unique())
    df = scores.assign(_w=words.str.lower())
    df = df.merge(freq.rename(columns={"word": "_w"}), on="_w", how="left").drop(columns="_w")
    df["valence"] = word_affect(df[item], valence_source, missing="zero" if valence_source == "afinn" else "nan")\
        .to_numpy()
    df["y"] = standardise(df, "reward", ("model", "prompt_key"), response)
    return df


def token_exposure_frame(token_scores: pd.DataFrame, valence_source: str = "afinn",
                         response: str = "z") -> pd.DataFrame:
    """Token-level rows for the mere-exposure regression: every swept token whose text (after
    :func:`rmlib.data.normalise_token`) is word-like (letters, apostrophes, hyphens), with ``word`` = that form.

    Several tokens can share a word (' love', 'love', 'Love'); they stay separate rows, and the shuffled baseline
    shuffles frequencies by word so they move together.
    """
    require_columns(token_scores, ["model", "prompt_key", "text", "reward"], "token_scores")
    df = word_like_tokens(token_scores)
    if df.empty:
        raise ValueError("no swept token is word-like; sweep more of the vocabulary")
    return exposure_frame(df, valence_source=valence_source, response=response, item="word")


def attach_reference_logprob(token_scores: pd.DataFrame, progress: bool = False) -> pd.DataFrame:
    """Add each token's log-prob under the model's reference LM (:func:`reference_lm`) under the same prompt.

    Adds reference_lm (None when unknown, e.g. a hub RM) and lm_logprob (NaN then). For an LM the reference is the
    model itself, so lm_logprob equals its reward. Token ids are joined as is: an RM trained by rmlib keeps its base
    model's tokenizer.
    """

    require_columns(token_scores, ["model", "prompt", "token_id", "reward"], "token_scores")
    parts = []
    for m, g in token_scores.groupby("model", sort=False):
        ref = reference_lm(m)
        g = g.assign(reference_lm=ref, lm_logprob=np.nan)
        if ref is not None:
            for prompt, gp in g.groupby("prompt", sort=False):
                # the whole vocabulary: one LM forward pass, and the sweep the chapter already cached
                lp = engine.token_rewards(ref, prompt, progress=progress)
                g.loc[gp.index, "lm_logprob"] = gp["token_id"].map(lp.set_index("token_id")["reward"]).to_numpy()
        parts.append(g)
    return pd.concat(parts)


FREQUENCY_LABELS = {"bnc": "BNC, exact word form", "bnc_lemma": "BNC, headword (lemma) totals",
                    "wordfreq": "wordfreq"}


def exposure_cells(df: pd.DataFrame, x: str, label: str = "label", covariate: str = "valence") -> pd.DataFrame:
    """One frequency slope per model x prompt cell (``y ~ x + covariate``, HC3; rmlib.regression.cell_slopes) over the
    rows that have both values, with each cell's prompt_valence."""
    require_columns(df, [label, "prompt_key", "prompt_valence", "y", x, covariate])
    d = df.dropna(subset=[x, covariate])
    cells = cell_slopes(d, y="y", x=x, covariates=[covariate], groups=[label, "prompt_key"])
    return cells.merge(d.drop_duplicates("prompt_key")[["prompt_key", "prompt_valence"]], on="prompt_key")


def exposure_shares(df: pd.DataFrame, sources: Sequence[str], *, label: str = "label", n_shuffles: int = 200,
                    seed: int = 0, subsets: dict[str, pd.Series] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Share of model x prompt cells with a positive frequency slope, per frequency matching and prompt valence, each
    next to its shuffled-frequency baseline (rmlib.regression.shuffled_share_baseline, shuffled by word).

    ``sources`` are frequency_table sources (a ``zipf_<source>`` column each); ``subsets`` adds named row masks,
    e.g. {'wordfreq, BNC words only': mask} run with wordfreq frequencies. Returns (cells: every cell's slope with
    a ``source`` column; table: source, prompts ('positive'|'negative'|'all'), n_words, n_cells, n_positive, share,
    ci_low, ci_high, n_sig_positive, n_sig_negative, and for each valence null_mean, null_low, null_high,
    p_greater; the 'all' row has no baseline).
    """
    variants = [(s, f"zipf_{s}", df) for s in sources]
    variants += [(name, "zipf_wordfreq", df[mask]) for name, mask in (subsets or {}).items()]
    all_cells, rows = [], []
    for name, x, d in variants:
        d = d.dropna(subset=[x, "valence"])
        cells = exposure_cells(d, x, label=label)
        all_cells.append(cells.assign(source=name))
        n_words = int(d["word"].nunique())
        for pv in ("positive", "negative", "all"):
            c = cells if pv == "all" else cells[cells["prompt_valence"] == pv]
            if c.empty:
                continue
            row = {"source": name, "prompts": pv, "n_words": n_words, **share_positive(c)}
            if pv != "all":
                null = shuffled_share_baseline(d[d["prompt_valence"] == pv], y="y", x=x, covariates=["valence"],
                                               groups=[label, "prompt_key"], item="word", n_shuffles=n_shuffles,
                                               seed=seed)
                base = compare_to_baseline(row["share"], null)
                row.update({k: base[k] for k in ("null_mean", "null_low", "null_high", "p_greater")})
            rows.append(row)
    return pd.concat(all_cells, ignore_index=True), pd.DataFrame(rows)


def exposure_by_group(df: pd.DataFrame, sources: Sequence[str], group: str, levels: dict[str, Sequence[str]], *,
                      label: str = "label") -> pd.DataFrame:
    """The share of positive frequency slopes refitted within subsets of words, e.g. per dictionary
    (``levels={'Big Two': ['big2', 'both'], 'MFD2': ['mfd2', 'both']}`` on column ``group``), per frequency matching
    and prompt valence. Wilson intervals only (no shuffled baseline). Returns source, <group>, prompts, n_words,
    n_cells, n_positive, share, ci_low, ci_high, n_sig_positive, n_sig_negative."""
    require_columns(df, [group])
    rows = []
    for s in sources:
        for level, values in levels.items():
            d = df[df[group].isin(list(values))].dropna(subset=[f"zipf_{s}", "valence"])
            cells = exposure_cells(d, f"zipf_{s}", label=label)
            for pv, c in cells.groupby("prompt_valence"):
                rows.append({"source": s, group: level, "prompts": pv, "n_words": int(d["word"].nunique()),
                             **share_positive(c)})
    return pd.DataFrame(rows)


def pooled_frequency_slopes(df: pd.DataFrame, x: str, label: str = "model", valence: str = "valence",
                            alpha: float = 0.05) -> pd.DataFrame:
    """Per model, the slope of y on ``x`` under positive and under negative prompts, pooled over prompts, with
    standard errors clustered by word (rmlib.regression.slope_difference).

    The valence covariate is oriented (valence under positive prompts, -valence under negative ones), because an RM
    that follows the prompt rewards valence in opposite directions under the two kinds of prompt.
    Returns label, slope_negative, slope_positive (each with _ci_low/_ci_high), difference (positive - negative)
    with CI and p, n.
    """
    require_columns(df, [label, "prompt_valence", "word", "y", x, valence])
    d = df.dropna(subset=[x, valence])
    d = d.assign(_oriented_valence=np.where(d["prompt_valence"] == "positive", 1.0, -1.0) * d[valence])
    out = slope_difference(d, y="y", x=x, condition="prompt_valence", levels=("negative", "positive"),
                           covariates=["_oriented_valence"], groups=[label], cluster="word", alpha=alpha)
    ren = {"slope_a": "slope_negative", "slope_b": "slope_positive"}
    out = out.rename(columns={c: c.replace(k, v) for c in out.columns for k, v in ren.items() if c.startswith(k)})
    return out.drop(columns=["condition_a", "condition_b"])

