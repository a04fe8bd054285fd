"""The good_teachers chapter's results: for each setting (the published RMs on EloEverything, or models computed
here on a vocabulary), how fast each proxy RM teaches a policy from each initial policy π_0 (the gain in the ground
truth after a fixed number of policy-gradient steps) against its accuracy and its reward variance under π_0; the
rank correlations of those predictors with the speed, the more-accurate-yet-slower RM pairs, the replication block
the claims page judges (Razin et al. 2025), and the theory's planted case."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis.teaching import settings as ts
from rmlib.storage import ChapterResults, Num, Record, Section, Table

__all__ = ["Parameters", "Correlation", "VarianceExplains", "Replication", "PlantedRM", "GoodTeachersResults",
           "chapter_results"]

Setting = Literal["published", "compute"]


class Parameters(Section):
    """The optimisation and the π_0 the chapter ran with."""

    kl_coef: float
    lr: float
    steps: int
    gain_steps: int
    gain_target: float
    subset_size: int  # items a concentrated π_0 puts most of its mass on (the π_0 names carry it)
    subset_mass: float
    n_resamples: int
    seed: int


class Correlation(Record):
    """One Spearman ρ of a predictor with a speed outcome, per π_0 or pooled
    (:func:`rmlib.analysis.teaching.stats.rank_correlations`)."""

    predictor: str
    outcome: str
    stratum: str
    rho: Num
    ci_low: Num
    ci_high: Num
    verdict: str


class VarianceExplains(Record):
    """Under one π_0: how many inversions the lower variance explains (:func:`teaching_stats.variance_explains`)."""

    pi0: str
    n_inversions: int
    n_inversions_margin: int
    n_lower_variance: int
    share: Num  # None without inversions


class Replication(Section):
    """Razin et al.'s two-part claim judged on one setting (:func:`rmlib.analysis.teaching.stats.replication`)."""

    n_slower_more_accurate: int
    n_slower_more_accurate_margin: int
    accuracy_margin: float
    n_slower_lower_variance: int
    variance_explains: list[VarianceExplains]
    variance_predicts_under: list[str]
    variance_does_not_predict_under: list[str]
    variance_reversed_under: list[str]
    variance_not_established_under: list[str]
    accuracy_predicts_under: list[str]
    reward_max_predicts_under: list[str]


class PlantedRM(Record):
    """One planted RM of the theory's case (perfectly accurate but flat under π_0, or noisy)."""

    model: str
    gain_T: Num


class GoodTeachersResults(ChapterResults):
    CHAPTERS = ("good_teachers",)

    mode: Literal[ts.MODES]
    settings: list[Setting]
    absent_models: dict[str, str]  # model -> why it could not be used
    parameters: Parameters
    overview: Table
    tables: dict[Setting, Table]  # per setting: one row per RM and π_0 (accuracy, variance, speed)
    sampled_accuracy_max_gap: Num
    correlations: dict[Setting, list[Correlation]]  # settings with 3 or more RMs only
    verdicts: dict[Setting, Table]
    slower_but_more_accurate: dict[Setting, Table]
    replication: dict[Setting, Replication]
    n_slower_but_more_accurate_pi0_pairs: dict[Setting, int]
    planted: list[PlantedRM]
    top_rm: str | None  # the RM whose top items the "top" π_0 holds (published setting)
    compute_coverage: Table | None


def chapter_results(mode: str, settings: dict, absent: dict, parameters: Parameters, overview: pd.DataFrame,
                    tables: dict, sampled_gap: float, correlations: dict, verdicts: dict, slower: dict,
                    replication: dict, slower_pi0: dict, planted: pd.DataFrame) -> GoodTeachersResults:
    """The chapter's results from what its cells computed (settings: name -> :class:`rmlib.analysis.teaching.settings.Setting`; the
    other dicts are keyed by setting name)."""
    return GoodTeachersResults(
        mode=mode, settings=list(settings), absent_models=absent, parameters=parameters, overview=overview,
        tables=tables, sampled_accuracy_max_gap=sampled_gap, correlations=correlations, verdicts=verdicts,
        slower_but_more_accurate=slower, replication=replication,
        n_slower_but_more_accurate_pi0_pairs={name: len(p) for name, p in slower_pi0.items()}, planted=planted,
        top_rm=settings["published"].notes["top_rm"] if "published" in settings else None,
        compute_coverage=settings["compute"].notes["coverage"] if "compute" in settings else None)
