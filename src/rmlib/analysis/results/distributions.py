"""The distributions chapter's results: per run (published EloEverything items, a token sweep) and model, the shape of
the reward distribution (moments and tail asymmetry with bootstrap CIs, and how many RMs are reliably skewed either
way), what fills its top and bottom tails, which token features separate the tails, and how many token texts the
swept tokenizers share."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis import distributions
from rmlib.storage import ChapterResults, Num, Record, Section, Table

__all__ = ["RunName", "SkewCounts", "Moment", "TailAsymmetry", "DistributionsResults", "skew_counts",
           "chapter_results"]

#: the runs a chapter can have (``MODE="both"`` has the two)
RunName = Literal["published", "compute"]


class SkewCounts(Section):
    """One run's skewness verdicts: of ``n`` distributions, how many have a 95% CI below 0 / above 0."""

    n: int
    n_negative: int
    n_positive: int


class Moment(Record):
    """One moment (mean, variance, skewness, kurtosis) of one model's rewards in one run, with its bootstrap CI."""

    run: RunName
    model: str
    moment: str
    estimate: Num
    ci_low: Num
    ci_high: Num
    n: int


class TailAsymmetry(Record):
    """One model's tail asymmetry (Q99 − median)/(median − Q1) in one run, with its bootstrap CI."""

    run: RunName
    model: str
    estimate: Num
    ci_low: Num
    ci_high: Num
    n: int


class DistributionsResults(ChapterResults):
    CHAPTERS = ("distributions",)

    mode: Literal[distributions.MODES]
    runs: list[RunName]
    skew_summary: dict[RunName, SkewCounts]
    moments: list[Moment]
    asymmetry: list[TailAsymmetry]
    composition: dict[RunName, Table]  # per run: each model's tail shares by kind of answer, with CIs and lift
    features: Table  # compute runs: token features of the top against the bottom tail (empty without one)
    shared_vocabulary_size: int | None  # token texts every swept tokenizer has; None without two swept models


def skew_counts(mom: pd.DataFrame) -> dict[str, SkewCounts]:
    """Per run: how many distributions there are, and how many are skewed negatively / positively (CI excludes 0)."""
    sk = mom[mom["moment"] == "skewness"]
    return {run: SkewCounts(n=len(g), n_negative=(g["ci_high"] < 0).sum(), n_positive=(g["ci_low"] > 0).sum())
            for run, g in sk.groupby("run")}


def chapter_results(mode: str, runs: dict[str, pd.DataFrame], mom: pd.DataFrame, asym: pd.DataFrame,
                    comps: dict[str, pd.DataFrame], feats: pd.DataFrame,
                    shared: pd.DataFrame | None) -> DistributionsResults:
    """The chapter's results from its runs and what the shape (:func:`~rmlib.analysis.distributions.shape_statistics`),
    tail (:func:`~rmlib.analysis.distributions.tail_compositions`,
    :func:`~rmlib.analysis.distributions.token_feature_tails`) and shared-vocabulary cells computed."""
    return DistributionsResults(
        mode=mode, runs=list(runs), skew_summary=skew_counts(mom), moments=mom.drop(columns=["model_run"]),
        asymmetry=asym.drop(columns=["model_run"]), composition=comps, features=feats,
        shared_vocabulary_size=None if shared is None else len(shared))
