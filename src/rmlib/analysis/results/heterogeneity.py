"""The heterogeneity chapter's results: per data set, how far the RMs' item rankings agree (Kendall τ, RBO at the
top and the bottom) and whether how alike two RMs are follows their base family or their size (Mantel and partial
Mantel tests)."""
from __future__ import annotations

from typing import Literal

import numpy as np

from rmlib.analysis import heterogeneity as het
from rmlib.storage import ChapterResults, JsonData, Num, Record, Section, Table

__all__ = ["PartialMantel", "SimilarityRunResults", "HeterogeneityResults", "chapter_results"]

class PartialMantel(Record):
    """One partial Mantel test: τ against ``design`` with ``given`` held fixed."""

    design: str
    given: str
    r: Num
    p: Num
    r_design: Num  # the design's plain Mantel r
    r_given_design: Num  # how far the two designs overlap, over model pairs
    n_models: int


class SimilarityRunResults(Section):
    """One data set (the published scores, or a fresh sweep)."""

    models: list[str]
    reward_kinds: dict[str, str]
    n_items: int
    tau_min: Num
    tau_median: Num
    tau_max: Num
    rbo_top_median: Num
    rbo_bottom_median: Num
    floor: Table
    mds_explained: list[Num]
    rsa: Table
    partial_mantel: PartialMantel | None  # base family given size, None when either design is unavailable
    partial_mantels: list[PartialMantel]  # every design given every other one
    kendall: JsonData


class HeterogeneityResults(ChapterResults):
    CHAPTERS = ("heterogeneity",)

    mode: Literal[het.MODES]
    runs: dict[Literal["published", "compute"], SimilarityRunResults]


def run_results(run: het.SimilarityRun) -> SimilarityRunResults:
    """The numbers the chapter keeps for one run (its τ matrix, extremes, floor, MDS and design tests)."""
    ex = het.tau_extremes(run)
    return SimilarityRunResults(
        models=run.models, reward_kinds=run.kinds, n_items=len(run.scores), tau_min=ex["tau"].min(),
        tau_median=np.median(ex["tau"]), tau_max=ex["tau"].max(), rbo_top_median=np.median(ex["rbo_top"]),
        rbo_bottom_median=np.median(ex["rbo_bottom"]), floor=run.floor.drop(columns=["pairs above shuffled max"]),
        mds_explained=run.explained.tolist(), rsa=run.rsa, partial_mantel=het.base_given_size(run),
        partial_mantels=run.partial, kendall=run.mats["kendall"].to_dict())


def chapter_results(mode: str, runs: dict[str, het.SimilarityRun]) -> HeterogeneityResults:
    """The chapter's results from its runs (after the similarity, floor, MDS and design cells have filled them)."""
    return HeterogeneityResults(mode=mode, runs={name: run_results(run) for name, run in runs.items()})
