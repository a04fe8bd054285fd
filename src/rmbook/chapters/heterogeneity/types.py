"""Types only, no builders: the heterogeneity chapter's results: per data set, how far the RMs' item rankings agree
(Kendall τ, RBO at the top and the bottom) and whether how alike two RMs are follows their base family or their size
(Mantel and partial Mantel tests). Each section is built where the chapter computes it, and its sentences are
rendered from it (``rmbook/chapters/heterogeneity/prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.heterogeneity.results`
builds them and re-exports them)."""
from __future__ import annotations

from typing import Literal

from rmbook.analysis.choices import ANY_MODE
from rmlib.storage import JsonData, Num, Record, Section, Table
from rmbook.results import ChapterResults

__all__ = ["PartialMantel", "About", "Agreement", "MdsMap", "DesignMatch", "SimilarityRunResults",
           "HeterogeneityResults"]


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

    mode: Literal[ANY_MODE]
    runs: dict[Literal["published", "compute"], SimilarityRunResults]
