"""The chapters' widest result tables as a reader reads them: a few named columns, each pair of related numbers in one
cell ("12 (8.3)", "1.45 [0.60, 2.10]"), so that a table fits the text column at 1280 px and no column scrolls out of
sight (#43 item 3: these ran 40 to 600 px past it). Only the display changes: the analyses return, and the results
files keep, every column; the prose and the claims page read those.

One function per table, named by what the rows are; the big_two and moral_foundations test tables are in
:mod:`rmbook.report.value_tables`."""
from __future__ import annotations

import pandas as pd

from rmbook.report.tables import MISSING, _missing as _one_missing, number_text, p_text
from rmlib.stats import require_columns

__all__ = ["answering_view", "contrast_view", "run_orders_view", "share_view", "slower_pairs_view", "topic_view"]


def _missing(*values) -> bool:
    return any(_one_missing(v) for v in values)


def _with(value, extra, fmt=number_text, extra_fmt=None) -> str:
    """``value (extra)``, or ``—`` when ``value`` is missing (and ``value`` alone when only ``extra`` is)."""
    if _missing(value):
        return MISSING
    return fmt(value) if _missing(extra) else f"{fmt(value)} ({(extra_fmt or fmt)(extra)})"


def _interval(value, low, high, fmt=number_text) -> str:
    """``value [low, high]``, or ``—`` when any of the three is missing."""
    return MISSING if _missing(value, low, high) else f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


def _versus(a, b, fmt=number_text) -> str:
    return MISSING if _missing(a, b) else f"{fmt(a)} vs {fmt(b)}"


def _cells(df: pd.DataFrame, fn, *columns) -> list[str]:
    """``fn`` applied to each row's ``columns`` (a column the table lacks is missing in every row)."""
    cols = [df[c] if c in df else pd.Series([None] * len(df), index=df.index) for c in columns]
    return [fn(*values) for values in zip(*cols)]


def answering_view(behaviour: pd.DataFrame) -> pd.DataFrame:
    """blinding: how each model answers (:func:`rmbook.chapters.blinding.analysis.behaviour`), in nine columns: the mean
    P(yes) + P(no) with its minimum, the blinded replica's P(yes) ± its SD over templates, decisiveness, the mean
    shift when told to ignore the attribute (with the mean absolute shift), and agreement with the replica informed
    and counterfactual (with the replica answer's mean probability)."""
    require_columns(behaviour, ["model", "reward_kind", "n_prompts"], "behaviour")
    out = pd.DataFrame({"model": behaviour["model"], "reward kind": behaviour["reward_kind"],
                        "prompts": behaviour["n_prompts"].map(number_text)})
    out["P(yes) + P(no) (min)"] = _cells(behaviour, _with, "yes_no_mass", "yes_no_mass_min")
    out["blinded P(yes) ± SD over templates"] = _cells(
        behaviour, lambda m, s: MISSING if _missing(m) else f"{number_text(m)} ± {number_text(s)}",
        "blinded_p_yes", "blinded_template_sd")
    out["decisiveness"] = _cells(behaviour, number_text, "decisiveness")
    out["shift when told to ignore (mean |shift|)"] = _cells(behaviour, _with, "ignore_shift", "ignore_abs_shift")
    for name in ("informed", "counterfactual"):
        out[f"agrees with the replica, {name} (its P)"] = _cells(behaviour, _with, f"agree_{name}",
                                                                 f"replica_p_{name}")
    return out


def topic_view(enrichment: pd.DataFrame) -> pd.DataFrame:
    """elo_misalignment: each topic among the most undervalued items (:func:`rmbook.chapters.elo_misalignment.analysis.
    undervalued_topics`), by prompt or pooled: items, flagged with the null's mean and 95% range of that count, the
    ratio of the two, the direction, p (FDR-adjusted p), and the unstratified ratio (its adjusted p) where the table
    has it."""
    require_columns(enrichment, ["topic", "n_items", "n_flagged", "expected", "ratio", "null_low", "null_high", "p",
                                 "p_fdr"], "topic enrichment")
    lead = [c for c in ("prompt", "topic") if c in enrichment]
    out = enrichment[lead].copy()
    out["items"] = enrichment["n_items"].map(number_text)
    out["flagged (null: mean [95%])"] = _cells(
        enrichment, lambda n, e, lo, hi: MISSING if _missing(n) else f"{number_text(n)} ({_interval(e, lo, hi)})",
        "n_flagged", "expected", "null_low", "null_high")
    out["ratio"] = enrichment["ratio"]
    if "direction" in enrichment:
        out["direction"] = enrichment["direction"].fillna("").replace("", MISSING)
    out["p (FDR)"] = _cells(enrichment, lambda p, q: _with(p, q, p_text), "p", "p_fdr")
    if "ratio_unstratified" in enrichment:
        out["unstratified ratio (p FDR)"] = _cells(enrichment, lambda r, q: _with(r, q, number_text, p_text),
                                                   "ratio_unstratified", "p_fdr_unstratified")
    return out


def run_orders_view(runs: pd.DataFrame) -> pd.DataFrame:
    """finetuning: each published run's family order across its checkpoints
    (:func:`rmbook.chapters.finetuning.durability.published_run_orders`): the first and final order, Kendall's W with
    the pair flips, how many checkpoints hold the claimed order, and the run's verdict (where it flipped, and whether
    the flip persisted)."""
    require_columns(runs, ["run", "checkpoints", "first_order", "final_order", "kendall_w", "pair_flips", "pairs",
                           "llama_below_gemma", "n_checkpoints", "holds", "flip_step", "persistent"], "run orders")

    def verdict(holds, flip, persistent) -> str:
        if _missing(flip):
            return "holds" if holds else "never holds"
        return f"flips at step {int(flip):,}" + (", for good" if persistent else ", then holds again")

    out = pd.DataFrame({"run": runs["run"], "checkpoints": runs["checkpoints"].map(number_text)})
    out["order: first → final"] = _cells(runs, lambda a, b: a if a == b else f"{a} → {b}", "first_order",
                                         "final_order")
    out["Kendall's W (pair flips)"] = _cells(
        runs, lambda w, f, n: _with(w, f"{int(f)} of {int(n)}" if not _missing(f, n) else None, number_text, str),
        "kendall_w", "pair_flips", "pairs")
    out["claimed order holds at"] = _cells(runs, lambda k, n: f"{int(k)} of {int(n)}", "llama_below_gemma",
                                           "n_checkpoints")
    out["verdict"] = _cells(runs, verdict, "holds", "flip_step", "persistent")
    return out


def slower_pairs_view(pairs: pd.DataFrame) -> pd.DataFrame:
    """good_teachers: each pair of RMs where the more accurate one teaches more slowly
    (:func:`rmbook.chapters.good_teachers.stats.slower_but_more_accurate`): the two RMs, then accuracy, speed and reward
    variance under π0 as "more accurate vs less accurate", whether the slower (more accurate) RM's variance is the
    lower, the higher or equal to the other's, and the accuracy gap."""
    require_columns(pairs, ["pi0", "more_accurate", "less_accurate", "accuracy_more", "accuracy_less",
                            "speed_more_accurate", "speed_less_accurate", "variance_more_accurate",
                            "variance_less_accurate", "lower_variance", "higher_variance", "accuracy_gap"],
                    "slower pairs")
    out = pd.DataFrame({"π0": pairs["pi0"], "more vs less accurate RM": _cells(pairs, lambda a, b: f"{a} vs {b}",
                                                                              "more_accurate", "less_accurate")})
    out["accuracy"] = _cells(pairs, _versus, "accuracy_more", "accuracy_less")
    out["speed"] = _cells(pairs, _versus, "speed_more_accurate", "speed_less_accurate")
    out["variance under π0"] = _cells(pairs, _versus, "variance_more_accurate", "variance_less_accurate")
    out["slower RM's variance"] = _cells(pairs, lambda lo, hi: "lower" if lo else "higher" if hi else "equal",
                                         "lower_variance", "higher_variance")
    out["accuracy gap"] = pairs["accuracy_gap"]
    return out


def contrast_view(tests: pd.DataFrame) -> pd.DataFrame:
    """implicit_rewards: each panel's word-group contrast (:func:`rmbook.analysis.families.word_contrast`): the
    groups with their sizes, the mean ranks, the difference, Hedges' g with its 95% CI, p and the FDR-adjusted p
    (and the reward kind, where the table has it)."""
    require_columns(tests, ["group_a", "group_b", "n_a", "n_b", "mean_a", "mean_b", "difference", "hedges_g",
                            "g_ci_low", "g_ci_high", "p", "p_fdr"], "word contrast")
    panel = list(tests.columns[:list(tests.columns).index("group_a")])
    out = tests[panel].copy()
    out["groups (n)"] = _cells(tests, lambda a, b, na, nb: f"{a} vs {b} ({int(na)} vs {int(nb)})",
                               "group_a", "group_b", "n_a", "n_b")
    out["mean rank"] = _cells(tests, _versus, "mean_a", "mean_b")
    out["difference"] = tests["difference"]
    out["Hedges' g [95% CI]"] = _cells(tests, _interval, "hedges_g", "g_ci_low", "g_ci_high")
    out["p (FDR)"] = _cells(tests, lambda p, q: _with(p, q, p_text), "p", "p_fdr")
    if "reward_kind" in tests:
        out["reward kind"] = tests["reward_kind"]
    return out


def share_view(shares: pd.DataFrame) -> pd.DataFrame:
    """mere_exposure: per word-frequency source and prompt valence, the share of (model, prompt) cells whose
    frequency slope is positive (:func:`rmbook.chapters.mere_exposure.slopes.exposure_shares`), with its 95% CI and
    count, the cells significant each way, the share under the null with its 95% range, and the p of a share that
    large."""
    require_columns(shares, ["source", "prompts", "n_words", "n_cells", "n_positive", "share", "ci_low", "ci_high",
                             "n_sig_positive", "n_sig_negative"], "shares")
    out = pd.DataFrame({"source": shares["source"], "prompts": shares["prompts"],
                        "words": shares["n_words"].map(number_text), "cells": shares["n_cells"].map(number_text)})
    out["positive slopes: share [95% CI]"] = _cells(
        shares, lambda s, lo, hi, k, n: f"{_interval(s, lo, hi)} ({int(k)} of {int(n)})",
        "share", "ci_low", "ci_high", "n_positive", "n_cells")
    out["significant + / −"] = _cells(shares, lambda a, b: f"{int(a)} / {int(b)}", "n_sig_positive",
                                      "n_sig_negative")
    out["null share [95%]"] = _cells(shares, _interval, "null_mean", "null_low", "null_high")
    out["p (share ≥ observed)"] = _cells(shares, p_text, "p_greater")
    return out
