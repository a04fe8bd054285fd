"""The value-profile chapters' results (big_two and moral_foundations, one template): per score table (published
scores of the paper RMs; in compute mode fresh scores too), whether Gemma- and Llama-based RMs rank each category ×
prompt valence panel differently (permutation tests over models, FDR across panels; the ANOVA and the authors' mixed
model beside them), and whether computed scores point the published way; big_two adds where 'love' and 'freedom'
rank and the family × category × valence interaction, moral_foundations the panels with virtue and vice pooled per
foundation. Each section is built where the chapter computes it; its sentences are rendered from it
(``prose.md.j2``)."""
from __future__ import annotations

from typing import Sequence

import pandas as pd

from rmbook.analysis import families as fam
from rmbook.chapters.value_profiles.types import (CategoryPanel, FoundationPanel, AnovaTerm, MixedTerm, MixedModel,
                                                  PanelLine, AnovaLine, MixedThreeWay, Mark, Direction, FamilySummary,
                                                  FoundationSummary, ComputedScores, Scored, LeftOut,
                                                  DirectionAgreement, WordRank, NamedRanks, FamilyOrder, WordPair,
                                                  ThreeWayTerm, InteractionTest, ValueProfilesResults, ALPHA)
from rmlib.data import design_prompts

__all__ = ["CategoryPanel", "FoundationPanel", "AnovaTerm", "MixedTerm", "MixedModel", "PanelLine", "AnovaLine",
           "MixedThreeWay", "Mark", "Direction", "FamilySummary", "FoundationSummary", "ComputedScores", "Scored",
           "LeftOut", "DirectionAgreement", "WordRank", "NamedRanks", "FamilyOrder", "WordPair", "ThreeWayTerm",
           "InteractionTest", "ValueProfilesResults", "ALPHA", "TOP_PANELS", "scored", "left_out", "family_summary",
           "foundation_summary", "direction_agreement", "word_pair", "interaction", "chapter_results"]

TOP_PANELS = 4  # the panels with the smallest p that the findings spell out


def scored(tables: dict[str, pd.DataFrame], words_per_category: int | None = None,
           compute_words_per_category: int | None = None) -> Scored:
    """The section of :func:`rmbook.analysis.values.value_tables`' tables and the word samples' sizes."""
    pub, c, computed = tables["published"], tables.get("compute"), None
    if c is not None:
        p = design_prompts(list(c["prompt_key"].unique()))
        uniq = lambda col, d=p: list(dict.fromkeys(d[col]))  # noqa: E731  (in the design's order)
        computed = ComputedScores(n_models=c["model"].nunique(), models=sorted(c["model"].unique()),
                                  n_words=c["word"].nunique(), n_prompts=len(p), n_design=len(design_prompts()),
                                  positive=uniq("adjective", p[p.valence == "positive"]),
                                  negative=uniq("adjective", p[p.valence == "negative"]),
                                  superlatives=uniq("superlative"), phrasings=uniq("phrasing"))
    return Scored(n_published=pub["model"].nunique(),
                  published_per_family=pub.groupby("family")["model"].nunique().to_dict(),
                  n_published_prompts=pub["prompt_key"].nunique(), n_published_words=pub["word"].nunique(),
                  computed=computed, words_per_category=words_per_category,
                  compute_words_per_category=compute_words_per_category)


def left_out(tables: dict[str, pd.DataFrame], analyses: dict, families: Sequence[str]) -> LeftOut:
    """The tables :func:`fam.family_analyses` left out (``analyses`` lacks them), with the families they have."""
    return LeftOut(first=families[0], second=families[1],
                   families={k: sorted(t["family"].unique()) for k, t in tables.items() if k not in analyses})


def _smallest(perm: pd.DataFrame, by: list[str], families: Sequence[str]) -> list[PanelLine]:
    cols = ["mean_a", "mean_b", "t", "p", "p_fdr", "reject"]
    return [PanelLine(where=", ".join(map(str, r[by])), **r[cols].to_dict(),
                      higher=families[0] if r["mean_a"] < r["mean_b"] else families[1])
            for _, r in perm.sort_values("p").head(TOP_PANELS).iterrows()]


def _directions(perm: pd.DataFrame, level: str, valence: str) -> list[Direction]:
    def marks(g, mask):
        return [Mark(name=str(c), significant=bool(r)) for c, r in zip(g.loc[mask, level], g.loc[mask, "reject"])]
    return [Direction(valence=str(v), first=marks(g, g["mean_a"] < g["mean_b"]),
                      second=marks(g, g["mean_a"] > g["mean_b"])) for v, g in perm.groupby(valence, sort=True)]


def _anova_lines(res: dict, by: list[str]) -> list[AnovaLine]:
    if res["anova"] is None:
        return []
    a = res["anova"].set_index("term")
    return [AnovaLine(name=" × ".join(t), df_resid=a.loc["Residual", "df"],
                      **a.loc[":".join(t), ["F", "df", "p", "partial_eta_sq"]].to_dict())
            for t in ([by[0]], by[:2], [*by[:2], "model"])]


def _mixed_three_way(res: dict) -> MixedThreeWay | None:
    m = res["mixed"]
    three = None if m is None else m[m["term"].str.count(":") == 2]
    if three is None or three.empty:
        return None
    r = three.loc[three["estimate"].abs().idxmax()]
    return MixedThreeWay(n_terms=len(three), n_below_alpha=int((three["p"] < ALPHA).sum()),
                         **r[["term", "estimate", "ci_low", "ci_high", "p"]].to_dict())


def family_summary(table: str, res: dict, scores: pd.DataFrame, families: Sequence[str],
                   by: Sequence[str] = ("category", "valence"), *, pooled: bool = False,
                   kind: type[FamilySummary] = FamilySummary) -> FamilySummary:
    """The section of table ``table``'s :func:`fam.family_analysis` (``res``, panels by ``by``) of ``scores``."""
    by, s, perm = list(by), fam.summarise(res, families), res["permutation"]
    if res["mixed"] is not None:
        s["mixed"]["group_var"] = res["mixed"].attrs["group_var"]
    return kind(**s, table=table, reward_kinds=sorted(scores["reward_kind"].unique()), pooled=pooled,
                first=families[0], second=families[1], by=by, n_a=perm["n_a"].iloc[0], n_b=perm["n_b"].iloc[0],
                significant=[", ".join(map(str, r[by])) for _, r in perm[perm["reject"]].iterrows()],
                smallest=_smallest(perm, by, families), directions=_directions(perm, by[0], by[1]),
                anova_lines=_anova_lines(res, by), mixed_three_way=_mixed_three_way(res))


def foundation_summary(res: dict, scores: pd.DataFrame, families: Sequence[str]) -> FoundationSummary:
    """The section of the published scores' :func:`fam.family_analysis` by foundation (virtue and vice pooled)."""
    return family_summary("published", res, scores, families, ("foundation", "valence"), pooled=True,
                          kind=FoundationSummary)


def direction_agreement(comparison: dict | None, families: Sequence[str]) -> DirectionAgreement | None:
    """The section of :func:`fam.compare_with_published` (None when there is no comparison)."""
    keys = ("same", "panels", "n_prompts", "n_words", "n_significant", "unit", "implicit")
    return None if comparison is None else DirectionAgreement(**{k: comparison[k] for k in keys}, first=families[0],
                                                              second=families[1])


def word_pair(pair: pd.DataFrame | None, ranks: pd.DataFrame, first: str, second: str, *, lexicon: str,
              models: Sequence[str] = ()) -> WordPair:
    """The section of :func:`rmbook.analysis.values.word_pair_table` (``pair``) of ``ranks``, naming ``models`` (nicknames)."""
    if pair is None:
        return WordPair(first=first, second=second, lexicon=lexicon, scored=False)
    named = pair.set_index("nickname")
    return WordPair(first=first, second=second, lexicon=lexicon, scored=True, n_words=int(ranks["n_words"].iloc[0]),
                    named=[NamedRanks(nickname=m, first_rank=named.loc[m, first], second_rank=named.loc[m, second])
                           for m in models if m in named.index],
                    by_family=[FamilyOrder(family=f, n_first_above=int((g == first).sum()), n_models=len(g))
                               for f, g in pair.groupby("family")["first"]])


def interaction(t: dict) -> InteractionTest:
    """The section of :func:`fam.interaction_test`: its numbers, and whether it points the claimed way and is clear."""
    return InteractionTest(**t, claimed_way=bool(t["difference"] * t["claimed_sign"] > 0),
                           significant=bool(t["p"] < ALPHA))


def _three_way_term(summary: FamilySummary) -> ThreeWayTerm | None:
    """The mixed model's family × category × valence term; None unless fitted with exactly one such term."""
    t = summary.mixed_three_way
    return None if t is None or t.n_terms != 1 else ThreeWayTerm(**t.model_dump(exclude={"n_terms", "n_below_alpha"}))


def chapter_results(chapter: str, mode: str, dictionary: str, families: list[str], scores: Scored, left: LeftOut,
                    summaries: dict[str, FamilySummary], agreement: DirectionAgreement | None = None, *,
                    love_freedom: pd.DataFrame | None = None, pair: WordPair | None = None,
                    three_way_models: InteractionTest | None = None,
                    by_foundation: FoundationSummary | None = None) -> ValueProfilesResults:
    """Chapter ``chapter``'s results from its sections (``summaries``: :func:`family_summary` per table analysed)
    and, for big_two, :func:`rmbook.analysis.values.word_ranks` of love and freedom; the other chapter's pieces are left out."""
    if chapter not in ValueProfilesResults.CHAPTERS:
        raise ValueError(f"chapter must be one of {ValueProfilesResults.CHAPTERS}, not {chapter!r}")
    big_two = chapter == "big_two"
    return ValueProfilesResults(
        mode=mode, dictionary=dictionary, families=families, scored=scores, left_out=left, results=summaries,
        direction_agreement=agreement, love_freedom=love_freedom if big_two else None,
        word_pair=pair if big_two else None,
        three_way=_three_way_term(summaries["published"]) if big_two and "published" in summaries else None,
        three_way_models=three_way_models if big_two else None, by_foundation=None if big_two else by_foundation)
