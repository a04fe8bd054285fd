"""The longer-answers chapter's results: whether the published scores of longer answers rise with length, and, for
fresh GCG searches of multi-token answers, how their rewards compare with the best and worst one-token answers and
which word categories the two share. Each section is built where the chapter computes it, and its sentences are
rendered from it (``rmlib/report/prose/templates/longer_answers.md.j2``)."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis import longer_answers as la
from rmlib.storage import ChapterResults, Num, Section, Table

__all__ = ["Published", "Search", "BeyondDirection", "Comparison", "SharingDirection", "Sharing",
           "LongerAnswersResults", "published", "search", "comparison", "sharing", "chapter_results"]


class Published(Section):
    """Published mode: the paper RMs' released scores of EloEverything answers against the answers' length."""

    table: Table  # per RM x prompt (la.length_and_reward): answers, share multi-word, Spearman rho and p, means
    n_models: int
    n_prompts: int
    n_pairs: int  # model x prompt pairs
    share_multi_word_median: Num  # median over pairs of the share of items with more than one word
    rho_min: Num
    rho_max: Num
    n_longer_more: int  # pairs with rho > 0 at p < 0.05: longer answers rewarded more
    n_longer_less: int  # ... rho < 0 at p < 0.05


class Search(Section):
    """What was searched: the models asked for and those available here, the prompts and the search's size."""

    requested: list[str]  # MODELS
    n_requested: int
    models: list[str]  # models searched (compute mode; empty otherwise)
    absent: dict[str, str]  # model id -> why it could not be searched here
    n_absent: int
    any_local_absent: bool  # a `local:` RM is absent (it exists only after the fine-tuning chapter)
    prompts: dict[str, str]  # prompt key -> prompt text
    lengths: list[int]  # response lengths searched, ascending
    searches_one_token: bool  # n = 1 is among them (a check against the exhaustive sweep)
    restarts: int
    steps: int


class BeyondDirection(Section):
    """One direction's multi-token restarts (n > 1) against the one-token extreme of the exhaustive sweep."""

    direction: Literal["max", "min"]
    lengths: list[int]  # the lengths > 1 searched, ascending
    n_restarts: int
    n_beyond: int  # restarts with a reward beyond (higher for max, lower for min) the one-token extreme
    share_beyond: float
    n_models: int
    n_models_beyond: int  # models with at least one such restart
    n_contains_top1: int  # restarts whose final response contains the one-token extreme
    share_contains_top1: float
    n_contains_topk: int  # ... at least one of the k most extreme one-token answers
    share_contains_topk: float


class Comparison(Section):
    """GCG optima against the one-token extremes, per model, prompt, direction and length, and per direction."""

    table: Table  # la.compare_with_one_token's rows
    directions: list[BeyondDirection]  # in the order the table first has them
    any_lm: bool  # an LM was searched: its reward is a summed log-probability
    k: int  # how many of the most extreme one-token answers an optimum may contain (compare_with_one_token's k)


class SharingDirection(Section):
    """How alike the category mix of one direction's multi-token answers and of the one-token tail are."""

    direction: str
    n_pairs: int  # model x prompt pairs
    overlap_min: float
    overlap_max: float
    overlap_median: float
    n_same_mode: int  # pairs whose most common category is the same in both
    same_modes: list[str]  # those categories, sorted


class Sharing(Section):
    """Whether multi-token optima and pessima share token categories with the one-token ones."""

    table: Table  # la.category_sharing's summary, one row per model x prompt x direction
    any_multi: bool  # a search at n > 1 ran (else there is nothing to compare)
    directions: list[SharingDirection]


class LongerAnswersResults(ChapterResults):
    CHAPTERS = ("longer_answers",)
    # 2: the results are sections: published -> published.table; models, absent, prompts, lengths, restarts, steps
    # -> search.*; comparison -> comparison.table; category_sharing -> sharing.table
    SCHEMA_VERSION = 2

    mode: Literal[la.MODES]
    published: Published | None = None  # None when published mode is off
    search: Search
    comparison: Comparison
    sharing: Sharing


def published(table: pd.DataFrame) -> Published:
    """The section of :func:`rmlib.analysis.longer_answers.length_and_reward`'s table."""
    sig = table[table["p"] < 0.05]
    return Published(table=table, n_models=table["model"].nunique(), n_prompts=table["prompt_key"].nunique(),
                     n_pairs=len(table), share_multi_word_median=table["share_multi_word"].median(),
                     rho_min=table["rho"].min(), rho_max=table["rho"].max(), n_longer_more=int((sig["rho"] > 0).sum()),
                     n_longer_less=int((sig["rho"] < 0).sum()))


def search(requested: list[str], models: list[str], absent: dict[str, str], prompts: dict[str, str],
           lengths: list[int], restarts: int, steps: int) -> Search:
    """The section of what :func:`rmlib.analysis.longer_answers.search_runs` was asked for and found: ``models``
    the ones searched, ``absent`` {model: why not} (the reason without the model's name repeated in front)."""
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
    """The section of :func:`rmlib.analysis.longer_answers.compare_with_one_token`'s table, made with ``k`` (empty
    when no model was searched); ``lms``: the searched models that are LMs."""
    if table.empty:
        return Comparison(table=table, directions=[], any_lm=False, k=k)
    multi = table[table["length"] > 1]
    return Comparison(table=table, directions=[_beyond(d, g) for d, g in multi.groupby("direction", sort=False)],
                      any_lm=bool(table["model"].isin(lms).any()), k=k)


def sharing(summary: pd.DataFrame) -> Sharing:
    """The section of :func:`rmlib.analysis.longer_answers.category_sharing`'s summary (empty when nothing at
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
