"""The distributions chapter's results: per run (published EloEverything items, a token sweep) and model, the shape of
the reward distribution (moments and tail asymmetry with bootstrap CIs, and how many RMs are reliably skewed either
way), what fills its top and bottom tails, which token features separate the tails, and how many token texts the
swept tokenizers share. Each section is built where the chapter computes it, and its sentences are rendered from it
(``rmbook/chapters/distributions/prose.md.j2``)."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.distributions.types import (AnswerSet, SkewCounts, Moment, TailAsymmetry, Shape, DominantKind,
                                                 TailKinds, WordShareRow, WordShare, DistributionsResults, RunName)

__all__ = ["RunName", "AnswerSet", "SkewCounts", "Moment", "TailAsymmetry", "Shape", "DominantKind", "TailKinds",
           "WordShareRow", "WordShare", "DistributionsResults", "answer_set", "skew_counts", "shape", "tail_kinds",
           "word_share", "shared_vocabulary_size", "chapter_results"]


def answer_set(run: str, df: pd.DataFrame) -> AnswerSet:
    """The section of one run of :func:`~rmbook.chapters.distributions.analysis.answer_runs`."""
    kinds = df.groupby("model", sort=False)["reward_kind"].first()
    sizes = df.groupby("model", sort=False).size()
    return AnswerSet(run=run, models=list(kinds.index), n_models=len(kinds), n_answers_min=sizes.min(),
                     n_answers_max=sizes.max(), same_size=sizes.min() == sizes.max(),
                     n_lm=kinds.str.startswith("LM").sum())


def _skew(sk: pd.DataFrame) -> SkewCounts:
    return SkewCounts(n=len(sk), n_negative=(sk["ci_high"] < 0).sum(), n_positive=(sk["ci_low"] > 0).sum())


def skew_counts(mom: pd.DataFrame) -> dict[str, SkewCounts]:
    """Per run: how many distributions there are, and how many are skewed negatively / positively (CI excludes 0)."""
    sk = mom[mom["moment"] == "skewness"]
    return {run: _skew(g) for run, g in sk.groupby("run")}


def _record(row: pd.Series) -> dict:
    return row.drop(labels=["model_run"], errors="ignore").to_dict()


def shape(mom: pd.DataFrame, asym: pd.DataFrame) -> Shape:
    """The section of :func:`~rmbook.chapters.distributions.analysis.shape_statistics`' moments and tail asymmetries."""
    sk = mom[mom["moment"] == "skewness"]
    return Shape(skew=_skew(sk), most_asymmetric=Moment(**_record(sk.loc[sk["estimate"].abs().idxmax()])),
                 n_ratio_below_1=(asym["ci_high"] < 1).sum(), n_ratio_above_1=(asym["ci_low"] > 1).sum())


def tail_kinds(run: str, comp: pd.DataFrame) -> TailKinds:
    """The section of one run's :func:`~rmbook.chapters.distributions.analysis.tail_compositions` table."""
    rows = []
    for m, c in comp.groupby("model", sort=False):
        top = c[c["tail"] == "top"].nlargest(1, "share").iloc[0]
        bot = c[c["tail"] == "bottom"].nlargest(1, "share").iloc[0]
        rows.append(DominantKind(model=m, top_value=top.value, top_share=top.share, top_lift=top.lift,
                                 bottom_value=bot.value, bottom_share=bot.share, bottom_lift=bot.lift))
    return TailKinds(run=run, k=int(comp.loc[comp["tail"] == "top", "n"].iloc[0]), models=rows)


def word_share(features: pd.DataFrame) -> WordShare:
    """The section of :func:`~rmbook.chapters.distributions.analysis.token_feature_tails` (an empty frame: no compute
    run)."""
    if features.empty:
        return WordShare(computed=False, models=[])
    w = features[features["feature"] == "is_word"]
    return WordShare(computed=True, models=[WordShareRow(**r) for r in w[list(WordShareRow.model_fields)]
                                            .to_dict(orient="records")])


def shared_vocabulary_size(shared: pd.DataFrame | None) -> int | None:
    """How many token texts :func:`~rmbook.chapters.distributions.analysis.shared_vocabulary` found (None: not
    computed)."""
    return None if shared is None else len(shared)


def chapter_results(mode: str, answers: dict[str, AnswerSet], mom: pd.DataFrame, asym: pd.DataFrame,
                    shape_section: Shape, comps: dict[str, pd.DataFrame], tails: dict[str, TailKinds],
                    feats: pd.DataFrame, words: WordShare, shared_size: int | None) -> DistributionsResults:
    """The chapter's results from its sections and the tables the shape
    (:func:`~rmbook.chapters.distributions.analysis.shape_statistics`) and tail
    (:func:`~rmbook.chapters.distributions.analysis.tail_compositions`,
    :func:`~rmbook.chapters.distributions.analysis.token_feature_tails`) cells computed."""
    return DistributionsResults(
        mode=mode, runs=list(answers), answer_sets=answers, skew_summary=skew_counts(mom), shape=shape_section,
        moments=mom.drop(columns=["model_run"]), asymmetry=asym.drop(columns=["model_run"]), composition=comps,
        tails=tails, features=feats, word_share=words, shared_vocabulary_size=shared_size)
