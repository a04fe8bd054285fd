"""The heterogeneity chapter's results: per data set, how far the RMs' item rankings agree (Kendall τ, RBO at the
top and the bottom) and whether how alike two RMs are follows their base family or their size (Mantel and partial
Mantel tests). Each section is built where the chapter computes it, and its sentences are rendered from it
(``rmbook/chapters/heterogeneity/prose.md.j2``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.chapters.heterogeneity import analysis as het
from rmbook.chapters.heterogeneity.types import (PartialMantel, About, Agreement, MdsMap, DesignMatch,
                                                 SimilarityRunResults, HeterogeneityResults)

__all__ = ["PartialMantel", "About", "Agreement", "MdsMap", "DesignMatch", "SimilarityRunResults",
           "HeterogeneityResults", "about", "agreement", "mds_map", "design_match", "run_results", "chapter_results"]


def about(run: het.SimilarityRun) -> About:
    """The section of a run as loaded (:func:`rmbook.chapters.heterogeneity.analysis.published_run` or
    ``computed_run``)."""
    return About(name=run.name, n_models=len(run.models), what=run.what, n_implicit=run.n_implicit)


def agreement(run: het.SimilarityRun) -> Agreement:
    """The section of a run after :func:`~rmbook.chapters.heterogeneity.analysis.similarities` and
    :func:`~rmbook.chapters.heterogeneity.analysis.noise_floor` (rows: Kendall τ, Spearman ρ, RBO from the top)."""
    ex, floor = het.tau_extremes(run), run.floor
    top, bottom = np.median(ex["rbo_top"]), np.median(ex["rbo_bottom"])
    return Agreement(name=run.name, tau_min=ex["tau"].min(), tau_median=np.median(ex["tau"]), tau_max=ex["tau"].max(),
                     least_alike=list(ex["least_alike"]), most_alike=list(ex["most_alike"]),
                     tau_shuffled_low=floor.loc[0, "shuffled 2.5%"], tau_shuffled_high=floor.loc[0, "shuffled 97.5%"],
                     rbo_top_median=top, rbo_bottom_median=bottom, rbo_shuffled_mean=floor.loc[2, "shuffled mean"],
                     rbo_gap=top - bottom, agree_more_at_top=bool(top - bottom > 0))


def mds_map(run: het.SimilarityRun) -> MdsMap:
    """The section of a run after :func:`~rmbook.chapters.heterogeneity.analysis.similarities` (its MDS map)."""
    return MdsMap(name=run.name, first_axis=run.explained.iloc[0], second_axis=run.explained.iloc[1])


def design_match(run: het.SimilarityRun, designs: dict, skipped: list[str], alpha: float = het.ALPHA) -> DesignMatch:
    """The section of a run after :func:`~rmbook.chapters.heterogeneity.analysis.design_rsa` and
    :func:`~rmbook.chapters.heterogeneity.analysis.design_partial_mantel` on ``designs`` (``skipped``: the ones
    :func:`~rmbook.chapters.heterogeneity.analysis.similarity_designs` left out)."""
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
