"""The identity-terms chapter's results: the terms (how many from each source, how many flagged), where the RMs place
EloEverything items that name a group of people against people's placement (the gap, and its excess over the gap
expected at the item's human rank, with the items that sit reliably below or above; published mode only), and where
identity words fall among the scored dictionary words or swept tokens of any model (``words``). Each section is
built where the chapter computes it, and its sentences are rendered from it
(``rmbook/chapters/identity_terms/prose.md.j2``)."""
from __future__ import annotations

import pandas as pd

from rmbook.analysis.results.beside import Beside, beside_section
from rmbook.chapters.identity_terms import analysis as identity
from rmbook.chapters.identity_terms.types import (Terms, BinCounts, OtherBins, ItemGap, EloResults, ValenceGap,
                                                  Fragile, WordsResults, IdentityTermsResults)
from rmlib.data import ELO_PROMPTS
from rmlib.stats import MIN_CI_VALUES

__all__ = ["Terms", "BinCounts", "OtherBins", "ItemGap", "EloResults", "ValenceGap", "Fragile", "WordsResults",
           "IdentityTermsResults", "SOURCE_NAMES", "FRAGILE_POINTS", "terms", "elo_results", "words",
           "chapter_results", "Beside", "paper_rms"]

#: The human valence norms as the page names them.
SOURCE_NAMES = {"warriner": "Warriner", "afinn": "AFINN", "vader": "VADER"}
#: Spellings of one word whose percentiles differ by more than this many points make a token row fragile.
FRAGILE_POINTS = 25.0


def terms(table: pd.DataFrame) -> Terms:
    """The section of :func:`rmlib.data.identity_terms`."""
    source = table["source"]
    return Terms(n_terms=len(table), n_holistic_bias=int((source != "dixon").sum()),
                 n_dixon=int((source != "holistic_bias").sum()), n_both=int((source == "both").sum()),
                 n_flagged=int(table["pejorative_in_some_uses"].sum()))


def _item_gaps(items: pd.DataFrame) -> list[ItemGap]:
    return [ItemGap(row=r.row, excess=r.excess, gap=r.gap) for r in items.itertuples()]


def elo_results(items: pd.DataFrame, verdicts: dict, n_models: int, sensitivity: dict,
                by_axis: pd.DataFrame) -> EloResults:
    """The item-level numbers from :func:`identity.identity_items` (``items``), :func:`identity.item_verdicts`,
    :func:`identity.bin_sensitivity` (empty without enough RMs) and :func:`identity.axis_gaps`."""
    enough = n_models >= identity.MIN_MODELS_FOR_CI
    summary = identity.verdicts_summary(items, verdicts, enough)
    bins = summary["human_bins"]
    return EloResults(items=items.drop(columns=["row"]), by_axis=by_axis, n_models=n_models, **summary,
                      model_pct_mean=items["model_pct"].mean(), human_pct_mean=items["human_pct"].mean(),
                      has_interval=enough, min_models=identity.MIN_MODELS_FOR_CI,
                      n_prompts=len(ELO_PROMPTS), min_ci_terms=MIN_CI_VALUES,
                      below=_item_gaps(verdicts["below"]) if enough else [],
                      above=_item_gaps(verdicts["above"]) if enough else [], worst=_item_gaps(verdicts["worst"]),
                      bin_points=100 / bins, adjusted_by_bins={str(b): c for b, c in sensitivity.items()},
                      other_bins=[OtherBins(bins=b, **c) for b, c in sensitivity.items() if b != bins])


def words(iw: dict, mode: str, human_source: str, fragile_points: float = FRAGILE_POINTS) -> WordsResults:
    """The section of :func:`identity.identity_words` (``iw``) read against ``human_source``'s norms."""
    table = iw["table"]
    name = SOURCE_NAMES.get(human_source, human_source)
    level = "word" if mode == "published" else "token"
    if not len(table):
        return WordsResults(level=level, level_text=iw["level"], human_source=name, n_terms=0, rows=[], by_axis=[],
                            min_ci_terms=MIN_CI_VALUES, n_universe=None, by_valence=[], fragile=None)
    by_valence = [ValenceGap(prompt_valence=pv, gap=g["gap"].mean(), n_terms=g["word"].nunique())
                  for pv, g in table.groupby("prompt_valence")]
    fragile = None
    if "token_pct_min" in table:
        wide = (table["token_pct_max"] - table["token_pct_min"]) > fragile_points
        fragile = Fragile(points=fragile_points, n_wide=int(wide.sum()), n_rows=len(table))
    return WordsResults(level=level, level_text=iw["level"], human_source=name, n_terms=table["word"].nunique(),
                        rows=table.drop(columns=["row"]), by_axis=iw["by_axis"],
                        min_ci_terms=MIN_CI_VALUES,
                        n_universe=int(iw["ranks"]["n_universe"].median()), by_valence=by_valence, fragile=fragile)


def chapter_results(mode: str, terms: Terms, scored: pd.DataFrame, words: WordsResults,
                    elo: EloResults | None = None, beside: Beside | None = None) -> IdentityTermsResults:
    """The chapter's results from its sections; ``scored`` is the scores read (``words`` of
    :func:`identity.identity_words`), for the models and their reward kinds."""
    return IdentityTermsResults(mode=mode, terms=terms, elo=elo, words=words, models=sorted(scored["model"].unique()),
                                reward_kinds=sorted(scored["reward_kind"].unique()), beside=beside)


def paper_rms(found: dict | None, human_source: str) -> Beside | None:
    """Compute mode's section that keeps the paper RMs on the page (``found``:
    :func:`rmbook.chapters.identity_terms.analysis.beside_paper_rms`; None in published mode)."""
    return beside_section(found, f"the mean gap, model − people's percentile ({human_source} norms), over the identity "
                                 "words", unit="words")
