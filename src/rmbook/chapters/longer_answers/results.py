"""The longer-answers chapter's results: whether the published scores of longer answers rise with length, and, for
fresh GCG searches of multi-token answers, how their rewards compare with the best and worst one-token answers and
which word categories the two share. Each section is built where the chapter computes it, and its sentences are
rendered from it (``rmbook/chapters/longer_answers/prose.md.j2``)."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.longer_answers.types import (Published, Search, BeyondDirection, Comparison, SharingDirection,
                                                  Sharing, LongerAnswersResults)

__all__ = ["Published", "Search", "BeyondDirection", "Comparison", "SharingDirection", "Sharing",
           "LongerAnswersResults", "published", "search", "comparison", "sharing", "chapter_results"]


def published(table: pd.DataFrame) -> Published:
    """The section of :func:`rmbook.chapters.longer_answers.analysis.length_and_reward`'s table."""
    sig = table[table["p"] < 0.05]
    return Published(table=table, n_models=table["model"].nunique(), n_prompts=table["prompt_key"].nunique(),
                     n_pairs=len(table), share_multi_word_median=table["share_multi_word"].median(),
                     rho_min=table["rho"].min(), rho_max=table["rho"].max(), n_longer_more=int((sig["rho"] > 0).sum()),
                     n_longer_less=int((sig["rho"] < 0).sum()))


def search(requested: list[str], models: list[str], absent: dict[str, str], prompts: dict[str, str],
           lengths: list[int], restarts: int, steps: int) -> Search:
    """The section of what :func:`rmbook.chapters.longer_answers.analysis.search_runs` was asked for and found:
    ``models`` the ones searched, ``absent`` {model: why not} (the reason without the model's name repeated in
    front)."""
    ns = sorted(int(n) for n in lengths)
    return Search(requested=list(requested), n_requested=len(requested), models=list(models),
                  absent={m: why.removeprefix(f"{m}: ") for m, why in absent.items()}, n_absent=len(absent),
                  any_local_absent=any(m.startswith("local:") for m in absent), prompts=prompts, lengths=ns,
                  searches_one_token=1 in ns, restarts=restarts, steps=steps)


def _beyond(d: str, g: pd.DataFrame) -> BeyondDirection:
    n, beyond = int(g["n_restarts"].sum()), int(g["n_beyond"].sum())
    by_model = g.groupby("model")["n_beyond"].sum()
    top1, topk = int(g["n_contains_top1"].sum()), int(g["n_contains_topk"].sum())
    return BeyondDirection(direction=d, lengths=sorted(int(x) for x in g["length"].unique()), n_restarts=n,
                           n_beyond=beyond, share_beyond=beyond / n, n_models=by_model.size,
                           n_models_beyond=int((by_model > 0).sum()), n_contains_top1=top1,
                           share_contains_top1=top1 / n, n_contains_topk=topk, share_contains_topk=topk / n)


def comparison(table: pd.DataFrame, lms: list[str], k: int) -> Comparison:
    """The section of :func:`rmbook.chapters.longer_answers.analysis.compare_with_one_token`'s table, made with ``k``
    (empty when no model was searched); ``lms``: the searched models that are LMs."""
    if table.empty:
        return Comparison(table=table, directions=[], any_lm=False, k=k)
    multi = table[table["length"] > 1]
    return Comparison(table=table, directions=[_beyond(d, g) for d, g in multi.groupby("direction", sort=False)],
                      any_lm=bool(table["model"].isin(lms).any()), k=k)


def sharing(summary: pd.DataFrame) -> Sharing:
    """The section of :func:`rmbook.chapters.longer_answers.analysis.category_sharing`'s summary (empty when nothing at
    n > 1 was searched)."""
    directions = []
    for d, g in ([] if summary.empty else summary.groupby("direction", sort=False)):
        same = g["modal_multi"] == g["modal_one_token"]
        directions.append(SharingDirection(
            direction=d, n_pairs=len(g), overlap_min=g["overlap"].min(), overlap_max=g["overlap"].max(),
            overlap_median=g["overlap"].median(), n_same_mode=int(same.sum()),
            same_modes=sorted(set(g.loc[same, "modal_multi"]))))
    return Sharing(table=summary, any_multi=not summary.empty, directions=directions)


def chapter_results(mode: str, published: Published | None, search: Search, comparison: Comparison,
                    sharing: Sharing) -> LongerAnswersResults:
    """The chapter's results from its sections (``published`` is None when published mode is off)."""
    return LongerAnswersResults(mode=mode, published=published, search=search, comparison=comparison,
                                sharing=sharing)
