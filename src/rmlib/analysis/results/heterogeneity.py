"""The heterogeneity chapter's results: per data set, how far the RMs' item rankings agree (Kendall τ, RBO at the
top and the bottom) and whether how alike two RMs are follows their base family or their size (Mantel and partial
Mantel tests). Each section is built where the chapter computes it, and its sentences are rendered from it
(``rmlib/report/prose/templates/heterogeneity.md.j2``)."""
from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from rmlib.analysis import heterogeneity as het
from rmlib.storage import ChapterResults, JsonData, Num, Record, Section, Table

__all__ = ["PartialMantel", "About", "Agreement", "MdsMap", "DesignMatch", "SimilarityRunResults",
           "HeterogeneityResults", "about", "agreement", "mds_map", "design_match", "run_results", "chapter_results"]


class PartialMantel(Record):
    """One partial Mantel test: τ against ``design`` with ``given`` held fixed."""

    design: str
    given: str
    r: Num
    p: Num
    exact: bool | None  # p over every relabelling of the models (None when r is undefined)
    p_se: Num  # the Monte Carlo standard error of p (0 when exact)
    n_permutations: int  # relabellings the p is over
    alternative: str  # two-sided: the book's convention (rmlib.stats.similarity.ALTERNATIVE)
    r_design: Num  # the design's plain Mantel r
    r_given_design: Num  # how far the two designs overlap, over model pairs
    n_models: int


class About(Section):
    """What one run compares."""

    name: str
    n_models: int
    what: str  # the items, in words
    n_implicit: int  # models whose reward is an LM's log-probability of the answer


class Agreement(Section):
    """How alike the models' rankings are: Kendall τ over model pairs and RBO from either end, against the floor
    that shuffled scores give."""

    name: str
    tau_min: Num
    tau_median: Num
    tau_max: Num
    least_alike: list[str]  # the pair with the smallest τ
    most_alike: list[str]  # ... and with the largest
    tau_shuffled_low: Num  # shuffled scores' τ: 2.5% quantile
    tau_shuffled_high: Num  # ... and 97.5% quantile
    rbo_top_median: Num
    rbo_bottom_median: Num
    rbo_shuffled_mean: Num  # RBO from the top of shuffled scores
    rbo_gap: Num  # median RBO from the top minus from the bottom
    agree_more_at_top: bool  # the gap is positive


class MdsMap(Section):
    """How faithful the flat MDS map is: the share of the eigenvalue mass on each of its two axes."""

    name: str
    first_axis: Num
    second_axis: Num


class DesignMatch(Section):
    """Whether a design (base family, developer, size) matches the τ matrix, and base family with size held fixed."""

    name: str
    status: Literal["tested", "too few models", "no design"]  # RSA needs 4 models and a usable design
    n_models: int
    skipped: list[str]  # designs the labels do not support, with why
    alpha: float
    best_design: str | None  # the design with the largest Mantel r
    best_r: Num
    best_p: Num
    best_n_models: int | None
    verdict: Literal["match", "chance", "no positive r"] | None  # het.best_design
    base_given_size: PartialMantel | None  # None when either design is unavailable (the claims page reads it)
    size_given_base: PartialMantel | None
    base_confounded: bool  # size fixes base family completely: no partial r with size held fixed
    designs_overlap: bool  # base family and size correlate positively over model pairs


class SimilarityRunResults(Section):
    """One data set (the published scores, or a fresh sweep): its sections (about .. designs), which the chapter's
    sentences are rendered from and the claims page reads (``agreement.tau_median``, ``designs.base_given_size``),
    and the tables behind them."""

    models: list[str]
    reward_kinds: dict[str, str]
    n_items: int
    floor: Table
    rsa: Table
    partial_mantels: list[PartialMantel]  # every design given every other one
    kendall: JsonData
    about: About
    agreement: Agreement
    mds: MdsMap
    designs: DesignMatch


class HeterogeneityResults(ChapterResults):
    CHAPTERS = ("heterogeneity",)
    SCHEMA_VERSION = 3  # 3: partial Mantel tests say whether their p is exact, its Monte Carlo SE, the sidedness
    # 2: the sections are required and the flat copies go (tau_*, rbo_*_median -> agreement,
    # mds_explained -> mds.first_axis/second_axis, partial_mantel -> designs.base_given_size)

    mode: Literal[het.MODES]
    runs: dict[Literal["published", "compute"], SimilarityRunResults]


def about(run: het.SimilarityRun) -> About:
    """The section of a run as loaded (:func:`rmlib.analysis.heterogeneity.published_run` or ``computed_run``)."""
    return About(name=run.name, n_models=len(run.models), what=run.what, n_implicit=run.n_implicit)


def agreement(run: het.SimilarityRun) -> Agreement:
    """The section of a run after :func:`~rmlib.analysis.heterogeneity.similarities` and
    :func:`~rmlib.analysis.heterogeneity.noise_floor` (rows: Kendall τ, Spearman ρ, RBO from the top)."""
    ex, floor = het.tau_extremes(run), run.floor
    top, bottom = np.median(ex["rbo_top"]), np.median(ex["rbo_bottom"])
    return Agreement(name=run.name, tau_min=ex["tau"].min(), tau_median=np.median(ex["tau"]), tau_max=ex["tau"].max(),
                     least_alike=list(ex["least_alike"]), most_alike=list(ex["most_alike"]),
                     tau_shuffled_low=floor.loc[0, "shuffled 2.5%"], tau_shuffled_high=floor.loc[0, "shuffled 97.5%"],
                     rbo_top_median=top, rbo_bottom_median=bottom, rbo_shuffled_mean=floor.loc[2, "shuffled mean"],
                     rbo_gap=top - bottom, agree_more_at_top=bool(top - bottom > 0))


def mds_map(run: het.SimilarityRun) -> MdsMap:
    """The section of a run after :func:`~rmlib.analysis.heterogeneity.similarities` (its MDS map)."""
    return MdsMap(name=run.name, first_axis=run.explained.iloc[0], second_axis=run.explained.iloc[1])


def design_match(run: het.SimilarityRun, designs: dict, skipped: list[str], alpha: float = het.ALPHA) -> DesignMatch:
    """The section of a run after :func:`~rmlib.analysis.heterogeneity.design_rsa` and
    :func:`~rmlib.analysis.heterogeneity.design_partial_mantel` on ``designs`` (``skipped``: the ones
    :func:`~rmlib.analysis.heterogeneity.similarity_designs` left out)."""
    status = "too few models" if len(run.models) < 4 else "no design" if not designs else "tested"
    best = (het.best_design(run.rsa, alpha) if status == "tested" else None) or {}
    base, back = het.base_given_size(run), het.design_given(run, het.SIZE_DESIGN, het.BASE_DESIGN)
    return DesignMatch(name=run.name, status=status, n_models=len(run.models), skipped=skipped, alpha=alpha,
                       best_design=best.get("design"), best_r=best.get("r"), best_p=best.get("p"),
                       best_n_models=best.get("n_models"), verdict=best.get("verdict"), base_given_size=base,
                       size_given_base=back, base_confounded=bool(base is not None and pd.isna(base["r"])),
                       designs_overlap=bool(base is not None and base["r_given_design"] > 0))


def run_results(run: het.SimilarityRun, intro: About, agree: Agreement, mds: MdsMap,
                match: DesignMatch) -> SimilarityRunResults:
    """The numbers the chapter keeps for one run, from its sections and the run (its τ matrix, floor and tests)."""
    return SimilarityRunResults(
        models=run.models, reward_kinds=run.kinds, n_items=len(run.scores),
        floor=run.floor.drop(columns=["pairs above shuffled max"]), rsa=run.rsa, partial_mantels=run.partial,
        kendall=run.mats["kendall"].to_dict(), about=intro, agreement=agree, mds=mds, designs=match)


def chapter_results(mode: str, runs: dict[str, SimilarityRunResults]) -> HeterogeneityResults:
    """The chapter's results from each run's results (:func:`run_results`)."""
    return HeterogeneityResults(mode=mode, runs=runs)
