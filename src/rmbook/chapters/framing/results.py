"""The framing chapter's results: per affect lexicon, each model's oriented valence slopes and the two halves of the
framing claim (positive prompts: steeper on positive words; negative prompts: steeper on negative words) with CIs;
how many models hold, reverse or leave each half unclear, per lexicon; the prompt-by-prompt cells; and the words that
move each half most. Each paragraph the chapter says is a section, built where the chapter computes it, and its
sentences are rendered from it (``rmbook/chapters/framing/prose.md.j2``)."""
from __future__ import annotations

import pandas as pd

from rmbook.analysis.results.beside import Beside, beside_section
from rmbook.analysis.claims.rules import MOST
from rmbook.chapters.framing.analysis import FRAMING_HALVES, dictionary_word_counts
from rmbook.chapters.framing.types import (HalfCounts, HalvesSummary, CellCounts, Scored, Coverage, Slopes,
                                           HalvesFound, Disagreement, TopWords, FramingResults, Half, Lexicon)

__all__ = ["Half", "Lexicon", "HalfCounts", "HalvesSummary", "CellCounts", "Scored", "Coverage", "Slopes",
           "HalvesFound", "Disagreement", "TopWords", "FramingResults", "scored", "coverage", "slopes", "halves_found",
           "disagreement", "top_words", "chapter_results", "Beside", "paper_rms"]


def scored(scores: pd.DataFrame, mode: str) -> Scored:
    """The section of :func:`rmbook.chapters.framing.sources.framing_scores`' output."""
    common = dict(mode=mode, n_models=scores["model"].nunique(), n_prompts=scores["prompt_key"].nunique())
    if mode == "published":
        c = dictionary_word_counts(scores)
        return Scored(**common, n_words=c["total"], n_big2=c["big2"], n_mfd2=c["mfd2"], n_both=c["both"])
    return Scored(**common, coverage=dict(scores.attrs["coverage"]),
                  reward_kinds=scores.groupby("model")["reward_kind"].first().to_dict())


def coverage(frames: dict[str, pd.DataFrame]) -> Coverage:
    """The section of :func:`rmbook.chapters.framing.sources.frames_by_source` (the first lexicon is the main one)."""
    main, *others = list(frames)
    n_side = frames[main].groupby("word_side")["word"].nunique()
    return Coverage(main=main, n_positive=int(n_side.get("positive", 0)), n_negative=int(n_side.get("negative", 0)),
                    others={s: frames[s]["word"].nunique() for s in others})


def slopes(contrast: pd.DataFrame, unit: str) -> Slopes:
    """The medians over models of the main lexicon's contrast
    (:func:`rmbook.chapters.framing.analysis.framing_contrast`)."""
    med = contrast[["s_pp", "s_pn", "s_np", "s_nn"]].median()
    return Slopes(n_models=len(contrast), unit=unit, **{k: float(v) for k, v in med.items()})


def halves_found(summary: dict, by_half: pd.DataFrame, outcome: dict, contrast: pd.DataFrame, *, unit: str,
                 main: str) -> HalvesFound:
    """The section of the main lexicon's halves (:func:`~rmbook.chapters.framing.analysis.framing_halves_summary`),
    cells (``by_half`` of :func:`~rmbook.chapters.framing.sources.cell_agreement`), verdicts
    (:func:`~rmbook.chapters.framing.sources.halves_outcome`) and contrast."""
    return HalvesFound(
        main=main, unit=unit, summary=summary, outcome=outcome, most=MOST,
        pos_congruent_steeper=int(by_half.loc["pos_prompts", "n_congruent_steeper"]),
        pos_cells=int(by_half.loc["pos_prompts", "n_cells"]),
        neg_congruent_steeper=int(by_half.loc["neg_prompts", "n_congruent_steeper"]),
        neg_cells=int(by_half.loc["neg_prompts", "n_cells"]),
        opposite_signs=bool(summary["patterns"].get("opposite signs")),
        framing_min=float(contrast["framing"].min()), framing_max=float(contrast["framing"].max()))


def disagreement(drivers: dict) -> Disagreement:
    """The section of :func:`rmbook.chapters.framing.sources.weak_half_drivers`. Under 'worst' prompts a word below
    the mean is one the RMs do not offer as the worst thing: ``below_mean`` names only the words for which that is
    true (a positive value is not 'low')."""
    summaries, weak = drivers["summaries"], drivers["weak"]
    sources = list(summaries)
    main = sources[0]
    down, extreme, named = drivers["down"], drivers["extreme"], drivers["named_extreme"]
    neg_side = extreme[extreme[main] < 0]
    low = [w for w, v in zip(down["word"], down["mean_y"]) if v < 0] if weak == "neg_prompts" else []
    return Disagreement(
        main=main, weak_prompts=FRAMING_HALVES[weak].split(":")[0],
        weak_holds=summaries[main][weak]["holds"], weak_holds_other={s: summaries[s][weak]["holds"] for s in sources[1:]},
        n=summaries[main]["n"],
        down_words=list(down["word"]), down_mean_y=[float(v) for v in down["mean_y"]], below_mean=low,
        all_below_mean=bool(low) and len(low) == len(down),
        neg_extreme={s: neg_side[f"{s}_extreme"].median() for s in sources}, worst_named=list(drivers["worst_named"]),
        named_extreme={s: named[f"{s}_extreme"].median() for s in sources})


def top_words(top: dict, mode: str) -> TopWords:
    """The section of :func:`rmbook.chapters.framing.sources.top_words`."""
    return TopWords(published=mode == "published", pos_highest=top["positive"][0], pos_lowest=top["positive"][1],
                    neg_highest=top["negative"][0], neg_lowest=top["negative"][1])


def chapter_results(mode: str, response: str, main: str, scores: pd.DataFrame, prompts: pd.DataFrame,
                    frames: dict[str, pd.DataFrame], contrasts: dict[str, pd.DataFrame], halves: pd.DataFrame,
                    by_half: pd.DataFrame, cells: pd.DataFrame, drivers: dict, *, scored: Scored, coverage: Coverage,
                    slopes: Slopes, halves_found: HalvesFound, disagreement: Disagreement,
                    top_words: TopWords, beside: Beside | None = None) -> FramingResults:
    """The chapter's results from its scores and lexicon frames, the contrasts, the main lexicon's halves, the
    prompt-by-prompt cells (:func:`~rmbook.chapters.framing.sources.cell_agreement`), the drivers
    (:func:`~rmbook.chapters.framing.sources.weak_half_drivers`) and the sections of its paragraphs."""
    return FramingResults(
        mode=mode, level=str(scores["level"].iloc[0]), response=response, main_source=main,
        models=sorted(scores["model"].unique()), reward_kinds=sorted(scores["reward_kind"].unique()),
        prompts=prompts["prompt_key"].tolist(), n_words={s: f["word"].nunique() for s, f in frames.items()},
        contrast=contrasts, halves=halves, halves_by_source=drivers["summaries"],
        cell_counts_by_half=by_half.reset_index(), cells=cells, influential_words=drivers["drivers"],
        weak_half=drivers["weak"], scored=scored, coverage=coverage, slopes=slopes, halves_found=halves_found,
        disagreement=disagreement, top_words=top_words, beside=beside)


def paper_rms(found: dict | None, main: str) -> Beside | None:
    """Compute mode's section that keeps the paper RMs on the page (``found``: the analysis' ``beside_paper_rms``;
    None in published mode)."""
    return beside_section(found, f"the two halves of the framing claim, {main.upper()} valence", unit="words")
