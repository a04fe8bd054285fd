"""The value-profile chapters' results (big_two and moral_foundations, one template): per score table (the published
scores of the paper RMs, and in compute mode fresh scores), whether Gemma- and Llama-based RMs rank each category ×
prompt valence panel differently (permutation tests over models, FDR across panels), with the ANOVA and the
authors' mixed model beside them, and whether computed scores point the published way. The Big Two chapter adds
where 'love' and 'freedom' rank and the family × category × valence interaction (per model, and the mixed model's
term); the Moral Foundations chapter adds the panels with virtue and vice pooled per foundation."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis import families as fam, values as vp
from rmlib.storage import ChapterResults, Num, Record, Section, Table

__all__ = ["CategoryPanel", "FoundationPanel", "AnovaTerm", "MixedTerm", "MixedModel", "FamilySummary",
           "FoundationSummary", "DirectionAgreement", "WordRank", "ThreeWayTerm", "InteractionTest",
           "ValueProfilesResults", "chapter_results"]


class _Panel(Record):
    valence: str
    difference: Num  # first family minus second, in median rank (lower = ranked higher)
    p: Num
    p_fdr: Num
    reject: bool


class CategoryPanel(_Panel):
    """One category × prompt valence panel: the two families compared by a permutation Welch test."""

    category: str


class FoundationPanel(_Panel):
    """One foundation × prompt valence panel (virtue and vice pooled)."""

    foundation: str


class AnovaTerm(Section):
    F: Num
    df: Num
    df_resid: Num
    p: Num
    partial_eta_sq: Num


class MixedTerm(Section):
    estimate: Num
    ci_low: Num
    ci_high: Num
    p: Num


class MixedModel(Section):
    """median_rank ~ family × category × valence + (1 | model), prompts as replicates."""

    converged: bool
    n_obs: int
    n_groups: int
    terms: dict[str, MixedTerm]


class FamilySummary(Section):
    """The family tests of one score table (:func:`fam.summarise` of :func:`fam.family_analysis`)."""

    unit: Literal["model", "prompt"]
    models_per_family: dict[str, int]
    min_attainable_p: Num
    n_prompts: int
    n_panels: int
    n_significant_raw: int
    n_significant_fdr: int
    min_p: Num
    min_p_fdr: Num
    panels: list[CategoryPanel]
    notes: list[str]
    anova: dict[str, AnovaTerm] | None = None  # None where the ANOVA could not be fitted
    mixed: MixedModel | None = None


class FoundationSummary(FamilySummary):
    panels: list[FoundationPanel]


class DirectionAgreement(Section):
    """How many panels of the computed scores point the way the published ones do (like with like)."""

    same: int
    panels: int


class WordRank(Record):
    """Where one word ranks (1 = highest reward) among the words one published RM scored under one prompt."""

    model: str
    nickname: str
    family: str
    word: str
    rank: Num
    n_words: int


class ThreeWayTerm(Section):
    """The family × category × valence term of the mixed model."""

    term: str
    estimate: Num
    ci_low: Num
    ci_high: Num
    p: Num


class InteractionTest(Section):
    """The family × category × valence interaction with models as the replicates (:func:`fam.interaction_test`)."""

    contrast: str
    difference: Num
    p: Num
    n_a: int
    n_b: int
    min_attainable_p: Num
    claimed_sign: Literal[1, -1]
    per_model: Table


class ValueProfilesResults(ChapterResults):
    CHAPTERS = ("big_two", "moral_foundations")

    mode: Literal[vp.MODES]
    dictionary: Literal["big2", "mfd2"]
    families: list[str]
    results: dict[Literal["published", "compute"], FamilySummary]  # per score table
    direction_agreement: DirectionAgreement | None = None  # compute mode, with both tables analysed
    # big_two only
    love_freedom: list[WordRank] | None = None
    three_way: ThreeWayTerm | None = None  # None without the published table or a single such term
    three_way_models: InteractionTest | None = None
    # moral_foundations only
    by_foundation: FoundationSummary | None = None


def _three_way_term(summary: dict) -> dict | None:
    """The family × category × valence term of a summary's mixed model; None when the model was not fitted or has
    several such terms."""
    terms = (summary.get("mixed") or {}).get("terms", {})
    three = [t for t in terms if t.count(":") == 2]
    return {"term": three[0], **terms[three[0]]} if len(three) == 1 else None


def chapter_results(chapter: str, mode: str, dictionary: str, families: list[str], analyses: dict[str, dict],
                    comparison: dict | None = None, *, love_freedom: pd.DataFrame | None = None,
                    three_way_models: dict | None = None, by_foundation: dict | None = None) -> ValueProfilesResults:
    """Chapter ``chapter``'s results from :func:`fam.family_analyses` (``analyses``), :func:`fam.compare_with_published`
    (``comparison``, None unless both tables were analysed) and the chapter's own pieces: for big_two
    :func:`vp.word_ranks` of love and freedom and :func:`fam.interaction_test` (None without the published table);
    for moral_foundations :func:`fam.family_analysis` by foundation (None without the published table). The other
    chapter's pieces are left out."""
    if chapter not in ValueProfilesResults.CHAPTERS:
        raise ValueError(f"chapter must be one of {ValueProfilesResults.CHAPTERS}, not {chapter!r}")
    summaries = {k: fam.summarise(r, families) for k, r in analyses.items()}
    big_two = chapter == "big_two"
    return ValueProfilesResults(
        mode=mode, dictionary=dictionary, families=families, results=summaries,
        direction_agreement=(None if comparison is None else
                             DirectionAgreement(same=comparison["same"], panels=comparison["panels"])),
        love_freedom=love_freedom if big_two else None,
        three_way=_three_way_term(summaries["published"]) if big_two and "published" in summaries else None,
        three_way_models=three_way_models if big_two else None,
        by_foundation=(fam.summarise(by_foundation, families) if by_foundation is not None and not big_two
                       else None))
