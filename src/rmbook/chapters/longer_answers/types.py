"""Types only, no builders: the longer-answers chapter's results: whether the published scores of longer answers rise
with length, and, for fresh GCG searches of multi-token answers, how their rewards compare with the best and worst
one-token answers and which word categories the two share. Each section is built where the chapter computes it, and
its sentences are rendered from it (``rmbook/chapters/longer_answers/prose.md.j2``).

The claims page reads these without importing the chapter's analysis (:mod:`rmbook.chapters.longer_answers.results`
builds them and re-exports them)."""
from __future__ import annotations

from typing import Literal

from rmbook.analysis.choices import ANY_MODE
from rmlib.storage import Num, Section, Table
from rmbook.results import ChapterResults

__all__ = ["Published", "Search", "BeyondDirection", "Comparison", "SharingDirection", "Sharing",
           "LongerAnswersResults"]


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

    mode: Literal[ANY_MODE]
    published: Published | None = None  # None when published mode is off
    search: Search
    comparison: Comparison
    sharing: Sharing
