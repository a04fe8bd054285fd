"""The mere exposure chapter on top of :mod:`.slopes`: the data of a run, the verdict per model, whether the word
frequency matchings agree, and whether an RM pays for frequency beyond what its base LM already prefers.

:func:`exposure_data` reads the scores (published dictionary words, or every word-like token of a sweep) with their
frequencies and valence; :func:`frequency_coverage` says how many words each frequency list covers;
:func:`share_bars` lays the shares of positive slopes next to their shuffled baselines for a chart;
:func:`dictionary_shares` refits within each dictionary; :func:`model_verdicts` applies the claims page's rule to the
pooled per-model slopes; :func:`matching_agreement` compares the matchings cell by cell; :func:`lm_controlled_slopes`
holds the reference LM's log-prob fixed (compute mode); :func:`beside_paper_rms` places each computed model's
slopes among the paper RMs' (compute mode).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from rmbook.analysis import beside
from rmbook.analysis.words import MODES, published_scores, token_scores
from rmbook.analysis.claims.rules import share_outcome
from rmbook.chapters.mere_exposure.slopes import (attach_reference_logprob, exposure_by_group, exposure_frame,
                                                  pooled_frequency_slopes, token_exposure_frame)
from rmlib.data import AFFECT_SOURCES, FREQUENCY_SOURCES
from rmlib.stats import cell_slopes, ci_verdict, standardise

__all__ = ["check_sources", "exposure_data", "frequency_coverage", "bnc_subset", "share_bars", "dictionary_shares",
           "pooled_slopes", "model_verdicts", "matching_agreement", "lm_controlled_slopes", "DICTIONARY_LEVELS",
           "slopes_by_label", "beside_paper_rms"]

DICTIONARY_LEVELS = {"Big Two": ["big2", "both"], "MFD2": ["mfd2", "both"]}


def check_sources(frequency_sources, valence_source: str) -> list[str]:
    """The frequency matchings of a run, refused when empty or unknown (and the valence lexicon with them)."""
    sources = list(frequency_sources or [])
    bad = [s for s in sources if s not in FREQUENCY_SOURCES]
    if bad or not sources:
        raise ValueError(f"FREQUENCY_SOURCES {bad or sources}: choose from {FREQUENCY_SOURCES}")
    if valence_source not in AFFECT_SOURCES:
        raise ValueError(f"VALENCE_SOURCE must be one of {AFFECT_SOURCES}, not {valence_source!r}")
    return sources


def exposure_data(mode: str = "published", models=None, prompt_keys=None, tokens=None, *,
                  valence_source: str = "afinn", load=None) -> pd.DataFrame:
    """One row per model × prompt × word (published) or word-like token (compute) with its frequencies (zipf_*),
    valence and standardised reward ``y`` (:func:`rmbook.chapters.mere_exposure.analysis.exposure_frame`)."""
    if mode == "published":
        return exposure_frame(published_scores(models, prompt_keys), valence_source=valence_source)
    if mode != "compute":
        raise ValueError(f"MODE must be one of {MODES}, not {mode!r}")
    return token_exposure_frame(token_scores(models, prompt_keys, tokens, load=load), valence_source=valence_source)


def frequency_coverage(data: pd.DataFrame, sources) -> dict[str, float]:
    """Share of the run's distinct words that each frequency list covers."""
    items = data.drop_duplicates("word")
    return {s: float(items[f"zipf_{s}"].notna().mean()) for s in sources}


def bnc_subset(data: pd.DataFrame, sources) -> dict[str, pd.Series]:
    """{'wordfreq, BNC words only': mask} when both lists are used: wordfreq on the words the BNC list covers, which
    separates the choice of counts from the choice of words."""
    return {"wordfreq, BNC words only": data["zipf_bnc"].notna()} if {"bnc", "wordfreq"} <= set(sources) else {}


def share_bars(share_table: pd.DataFrame) -> pd.DataFrame:
    """The valenced rows of :func:`rmbook.chapters.mere_exposure.analysis.exposure_shares` as two bars each (observed,
    shuffled baseline) with a label, share, low and high, for :func:`rmbook.report.charts.slope_ci`."""
    valenced = share_table[share_table["prompts"] != "all"]
    row = valenced["source"] + " · " + valenced["prompts"] + " prompts: "
    return pd.concat([
        valenced.assign(row=row + "observed", kind="observed", low=np.fmin(valenced["ci_low"], valenced["share"]),
                        high=np.fmax(valenced["ci_high"], valenced["share"])),
        valenced.assign(row=row + "shuffled", kind="shuffled baseline", share=valenced["null_mean"],
                        low=valenced["null_low"], high=valenced["null_high"])])


def dictionary_shares(data: pd.DataFrame, sources) -> pd.DataFrame:
    """The share of positive slopes refitted within the Big Two nouns and within the MFD2 terms (empty for token
    runs, which belong to no dictionary)."""
    if "dictionary" not in data.columns:
        return pd.DataFrame()
    return exposure_by_group(data, sources, "dictionary", DICTIONARY_LEVELS)


def pooled_slopes(data: pd.DataFrame, sources) -> pd.DataFrame:
    """:func:`rmbook.chapters.mere_exposure.analysis.pooled_frequency_slopes` per model label for every frequency
    matching."""
    return pd.concat([pooled_frequency_slopes(data, f"zipf_{s}", label="label").assign(source=s) for s in sources],
                     ignore_index=True)


def model_verdicts(pooled: pd.DataFrame, sources) -> pd.DataFrame:
    """Per matching and prompt valence: how many models have a pooled frequency slope above / below zero (95% CI)
    and the claims page's outcome for the frequency preference."""
    n_models = pooled["label"].nunique()
    rows = []
    for s in sources:
        for pv in ("positive", "negative"):
            v = ci_verdict(pooled[pooled["source"] == s], f"slope_{pv}", "label")
            rows.append({"source": s, "prompts": pv, "n_above": len(v["above"]), "n_below": len(v["below"]),
                         "n_models": n_models,
                         "outcome": share_outcome(len(v["above"]), n_models, against=len(v["below"]))})
    return pd.DataFrame(rows)


def matching_agreement(cells: pd.DataFrame, sources) -> pd.DataFrame:
    """For each pair of matchings with at least 3 cells in common: Spearman ρ between their cell slopes and the
    share of cells whose slopes have the same sign."""
    sources = list(sources)
    both = cells[cells["source"].isin(sources)].pivot_table(index=["label", "prompt_key"], columns="source",
                                                            values="slope")
    return pd.DataFrame([
        {"a": a, "b": b, "rho": stats.spearmanr(both[a], both[b], nan_policy="omit").statistic,
         "same_sign": float((np.sign(both[a]) == np.sign(both[b])).mean())}
        for k, a in enumerate(sources) for b in sources[k + 1:] if len(both[[a, b]].dropna()) >= 3])


def lm_controlled_slopes(data: pd.DataFrame, x: str = "zipf_wordfreq") -> pd.DataFrame:
    """Compute mode: per model × prompt, the frequency slope of the reference LM's log-prob, of the reward, and of the
    reward with the LM log-prob held fixed (with CI), and how reward and LM log-prob correlate. Empty when no model
    has a known reference LM (hub RMs record none)."""
    ref = attach_reference_logprob(data)
    ref = ref[ref["lm_logprob"].notna()].copy()
    if ref.empty:
        return pd.DataFrame()
    ref["lm_z"] = standardise(ref, "lm_logprob", ("model", "prompt_key"))
    d = ref.dropna(subset=[x, "valence"])
    groups = ["label", "prompt_key"]
    lm_cells = cell_slopes(d, y="lm_z", x=x, covariates=["valence"], groups=groups).set_index(groups)
    rm_cells = cell_slopes(d, y="y", x=x, covariates=["valence"], groups=groups).set_index(groups)
    adj_cells = cell_slopes(d, y="y", x=x, covariates=["valence", "lm_z"], groups=groups).set_index(groups)
    rows = []
    for (lab, pk), g in d.groupby(groups):
        adj = adj_cells.loc[(lab, pk)]
        rows.append({"label": lab, "prompt_key": pk, "reference_lm": g["reference_lm"].iloc[0],
                     "reward_kind": g["reward_kind"].iloc[0],
                     "rho_reward_vs_lm_logprob": stats.spearmanr(g["reward"], g["lm_logprob"]).statistic,
                     "lm_slope": lm_cells.loc[(lab, pk), "slope"], "reward_slope": rm_cells.loc[(lab, pk), "slope"],
                     "reward_slope_given_lm": adj["slope"], "ci_low": adj["ci_low"], "ci_high": adj["ci_high"]})
    return pd.DataFrame(rows)


def slopes_by_label(scores: pd.DataFrame, source: str, valence_source: str = "afinn") -> pd.DataFrame:
    """Each model's pooled frequency slope (``source``'s Zipf frequency, valence held fixed) under each prompt
    valence, from word scores (:func:`exposure_frame`, then :func:`pooled_frequency_slopes` by ``label``): label,
    measure ("positive prompts", "negative prompts"), estimate, n_words (the words with a frequency and a valence)."""
    frame = exposure_frame(scores, valence_source=valence_source)
    pooled = pooled_frequency_slopes(frame, f"zipf_{source}", label="label")
    used = frame.dropna(subset=[f"zipf_{source}", "valence"]).groupby("label")["word"].nunique()
    return pd.DataFrame([{"label": r["label"], "measure": f"{pv} prompts", "estimate": r[f"slope_{pv}"],
                          "n_words": int(used.get(r["label"], 0))}
                         for _, r in pooled.iterrows() for pv in ("positive", "negative")],
                        columns=["label", "measure", "estimate", "n_words"])


def beside_paper_rms(data: pd.DataFrame, source: str, valence_source: str = "afinn") -> dict:
    """Compute mode: each computed model's pooled frequency slopes placed among the paper RMs' on the same prompt
    wordings and the same words (:func:`rmbook.analysis.beside.beside_words`). A word's several tokens (' love',
    'Love') are averaged into the word's reward first, as the paper RMs' released scores have one per word."""
    keys = ["label", "model", "prompt_key", "prompt", "prompt_valence", "word"]
    words = data.groupby(keys, as_index=False, sort=False)["reward"].mean()
    return beside.beside_words(words, lambda frame: slopes_by_label(frame, source, valence_source))
