"""The framing chapter's results: per affect lexicon, each model's oriented valence slopes and the two halves of the
framing claim (positive prompts: steeper on positive words; negative prompts: steeper on negative words) with CIs;
how many models hold, reverse or leave each half unclear, per lexicon; the prompt-by-prompt cells; and the words that
move each half most. Each paragraph the chapter says is a section, built where the chapter computes it, and its
sentences are rendered from it (``rmlib/report/prose/templates/framing.md.j2``)."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis.framing import sources as fs
from rmlib.analysis.claims.rules import MOST, OUTCOMES
from rmlib.analysis.framing import FRAMING_HALVES, dictionary_word_counts
from rmlib.analysis.words import MODES
from rmlib.data import AFFECT_SOURCES
from rmlib.storage import ChapterResults, Num, Record, Section, Table

__all__ = ["Half", "Lexicon", "HalfCounts", "HalvesSummary", "CellCounts", "Scored", "Coverage", "Slopes",
           "HalvesFound", "Disagreement", "TopWords", "FramingResults", "scored", "coverage", "slopes", "halves_found",
           "disagreement", "top_words", "chapter_results"]

Half = Literal[tuple(FRAMING_HALVES)]
Lexicon = Literal[AFFECT_SOURCES]


class HalfCounts(Section):
    """One half of the claim over models: how many hold it (95% CI above 0), reverse it (below 0), leave it unclear."""

    holds: int
    reversed: int
    unclear: int
    n: int


class HalvesSummary(Section):
    """The two halves counted over models with one lexicon (:func:`rmlib.analysis.framing.framing_halves_summary`),
    and how many models show each pattern of the two."""

    pos_prompts: HalfCounts
    neg_prompts: HalfCounts
    patterns: dict[str, int]
    n: int


class CellCounts(Record):
    """One half, prompt by prompt (main lexicon): in how many model × prompt cells the congruent word side has the
    steeper oriented slope."""

    half: Half
    n_congruent_steeper: int
    n_cells: int


class Scored(Section):
    """What the run scored: published dictionary words (word counts per dictionary) or token sweeps mapped to words
    (each model's coverage of the lexicon words and its reward kind)."""

    mode: Literal[MODES]
    n_models: int
    n_prompts: int
    n_words: int | None = None  # published: distinct dictionary words ...
    n_big2: int | None = None  # ... only in the Big Two nouns
    n_mfd2: int | None = None  # ... only in MFD2
    n_both: int | None = None  # ... in both
    coverage: dict[str, float] = {}  # compute: per model, the share of lexicon words matched by single tokens
    reward_kinds: dict[str, str] = {}  # compute: per model


class Coverage(Section):
    """How many positive and negative words the main lexicon rates among the scored words, and how many words each
    other lexicon rates."""

    main: Lexicon
    n_positive: int
    n_negative: int
    others: dict[Lexicon, int]


class Slopes(Section):
    """The median over models of each of the four oriented slopes (main lexicon)."""

    n_models: int
    unit: str
    s_pp: float  # positive words, positive prompts
    s_np: float  # negative words, positive prompts
    s_nn: float  # negative words, negative prompts
    s_pn: float  # positive words, negative prompts


class HalvesFound(Section):
    """Each half of the claim over models and over model × prompt cells, the per-model patterns and the claims
    page's verdicts (main lexicon)."""

    main: Lexicon
    unit: str
    summary: HalvesSummary
    outcome: dict[Half, Literal[OUTCOMES]]  # the claims page's rule on each half
    most: float  # the share of models that must show a half for it to hold (the claims page's rule)
    pos_congruent_steeper: int  # positive prompts: cells whose positive words are steeper
    pos_cells: int
    neg_congruent_steeper: int  # negative prompts: cells whose negative words are steeper
    neg_cells: int
    opposite_signs: bool  # some model's halves have opposite signs
    framing_min: float  # the pooled framing contrast's range over models
    framing_max: float


class Disagreement(Section):
    """Why the lexicons disagree about the weaker half (:func:`rmlib.analysis.framing.sources.weak_half_drivers`)."""

    main: Lexicon
    weak_prompts: str  # the weaker half's prompts, in words ('negative prompts')
    weak_holds: int  # models holding the weaker half with the main lexicon
    weak_holds_other: dict[Lexicon, int]  # ... with each other lexicon
    n: int  # models
    down_words: list[str]  # the main lexicon's words that pull the weaker half down most
    down_mean_y: list[float]  # their mean standardised rewards under that half's prompts
    below_mean: list[str]  # negative-prompt half only: those of them below the mean (not offered as the worst)
    all_below_mean: bool
    neg_extreme: dict[Lexicon, Num]  # per lexicon: median extremeness of the negative ones among down_words
    worst_named: list[str]  # the negative words the RMs score highest under negative prompts
    named_extreme: dict[Lexicon, Num]  # per lexicon: their median extremeness


class TopWords(Section):
    """Per prompt valence, the highest- and lowest-scored words by standardised reward (not oriented)."""

    published: bool  # published scores (the MFD2's obscenities and slurs appear as data)
    pos_highest: list[str]
    pos_lowest: list[str]
    neg_highest: list[str]
    neg_lowest: list[str]


class FramingResults(ChapterResults):
    CHAPTERS = ("framing",)
    SCHEMA_VERSION = 2  # 2: the paragraphs' sections (scored ... top_words); halves_summary, halves_outcome -> halves_found

    mode: Literal[MODES]
    level: Literal["word", "token"]
    response: Literal[fs.RESPONSES]
    main_source: Lexicon
    models: list[str]
    reward_kinds: list[str]
    prompts: list[str]
    n_words: dict[Lexicon, int]  # distinct lexicon words scored, per lexicon
    contrast: dict[Lexicon, Table]  # per lexicon, one row per model: the oriented slopes, halves and contrasts
    halves: Table  # main lexicon, one row per model: each half's verdict, the pattern and the 'k of n' cells
    halves_found: HalvesFound  # main lexicon: the counts, cells, patterns and verdicts of each half
    halves_by_source: dict[Lexicon, HalvesSummary]
    cell_counts_by_half: list[CellCounts]
    cells: Table  # main lexicon: one row per model × prompt
    influential_words: dict[Lexicon, Table]
    weak_half: Half  # the half the fewest models hold with the main lexicon
    scored: Scored
    coverage: Coverage
    slopes: Slopes
    disagreement: Disagreement
    top_words: TopWords


def scored(scores: pd.DataFrame, mode: str) -> Scored:
    """The section of :func:`rmlib.analysis.framing.sources.framing_scores`' output."""
    common = dict(mode=mode, n_models=scores["model"].nunique(), n_prompts=scores["prompt_key"].nunique())
    if mode == "published":
        c = dictionary_word_counts(scores)
        return Scored(**common, n_words=c["total"], n_big2=c["big2"], n_mfd2=c["mfd2"], n_both=c["both"])
    return Scored(**common, coverage=dict(scores.attrs["coverage"]),
                  reward_kinds=scores.groupby("model")["reward_kind"].first().to_dict())


def coverage(frames: dict[str, pd.DataFrame]) -> Coverage:
    """The section of :func:`rmlib.analysis.framing.sources.frames_by_source` (the first lexicon is the main one)."""
    main, *others = list(frames)
    n_side = frames[main].groupby("word_side")["word"].nunique()
    return Coverage(main=main, n_positive=int(n_side.get("positive", 0)), n_negative=int(n_side.get("negative", 0)),
                    others={s: frames[s]["word"].nunique() for s in others})


def slopes(contrast: pd.DataFrame, unit: str) -> Slopes:
    """The medians over models of the main lexicon's contrast (:func:`rmlib.analysis.framing.framing_contrast`)."""
    med = contrast[["s_pp", "s_pn", "s_np", "s_nn"]].median()
    return Slopes(n_models=len(contrast), unit=unit, **{k: float(v) for k, v in med.items()})


def halves_found(summary: dict, by_half: pd.DataFrame, outcome: dict, contrast: pd.DataFrame, *, unit: str,
                 main: str) -> HalvesFound:
    """The section of the main lexicon's halves (:func:`~rmlib.analysis.framing.framing_halves_summary`), cells
    (``by_half`` of :func:`~rmlib.analysis.framing.sources.cell_agreement`), verdicts
    (:func:`~rmlib.analysis.framing.sources.halves_outcome`) and contrast."""
    return HalvesFound(
        main=main, unit=unit, summary=summary, outcome=outcome, most=MOST,
        pos_congruent_steeper=int(by_half.loc["pos_prompts", "n_congruent_steeper"]),
        pos_cells=int(by_half.loc["pos_prompts", "n_cells"]),
        neg_congruent_steeper=int(by_half.loc["neg_prompts", "n_congruent_steeper"]),
        neg_cells=int(by_half.loc["neg_prompts", "n_cells"]),
        opposite_signs=bool(summary["patterns"].get("opposite signs")),
        framing_min=float(contrast["framing"].min()), framing_max=float(contrast["framing"].max()))


def disagreement(drivers: dict) -> Disagreement:
    """The section of :func:`rmlib.analysis.framing.sources.weak_half_drivers`. Under 'worst' prompts a word below
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
    """The section of :func:`rmlib.analysis.framing.sources.top_words`."""
    return TopWords(published=mode == "published", pos_highest=top["positive"][0], pos_lowest=top["positive"][1],
                    neg_highest=top["negative"][0], neg_lowest=top["negative"][1])


def chapter_results(mode: str, response: str, main: str, scores: pd.DataFrame, prompts: pd.DataFrame,
                    frames: dict[str, pd.DataFrame], contrasts: dict[str, pd.DataFrame], halves: pd.DataFrame,
                    by_half: pd.DataFrame, cells: pd.DataFrame, drivers: dict, *, scored: Scored, coverage: Coverage,
                    slopes: Slopes, halves_found: HalvesFound, disagreement: Disagreement,
                    top_words: TopWords) -> FramingResults:
    """The chapter's results from its scores and lexicon frames, the contrasts, the main lexicon's halves, the
    prompt-by-prompt cells (:func:`~rmlib.analysis.framing.sources.cell_agreement`), the drivers
    (:func:`~rmlib.analysis.framing.sources.weak_half_drivers`) and the sections of its paragraphs."""
    return FramingResults(
        mode=mode, level=str(scores["level"].iloc[0]), response=response, main_source=main,
        models=sorted(scores["model"].unique()), reward_kinds=sorted(scores["reward_kind"].unique()),
        prompts=prompts["prompt_key"].tolist(), n_words={s: f["word"].nunique() for s, f in frames.items()},
        contrast=contrasts, halves=halves, halves_by_source=drivers["summaries"],
        cell_counts_by_half=by_half.reset_index(), cells=cells, influential_words=drivers["drivers"],
        weak_half=drivers["weak"], scored=scored, coverage=coverage, slopes=slopes, halves_found=halves_found,
        disagreement=disagreement, top_words=top_words)
