"""The mere-exposure chapter's results: with valence held fixed, how often an RM's score rises with word frequency
(the share of model × prompt cells with a positive frequency slope against a shuffled-frequency baseline, per
frequency matching, prompt valence and dictionary), each model's pooled frequency slope and the claims page's
verdict over models, how far the frequency matchings agree, and (compute mode) the slopes with the base LM's log-prob
held fixed."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis.claims.rules import OUTCOMES
from rmlib.analysis.words import MODES
from rmlib.data import AFFECT_SOURCES, FREQUENCY_SOURCES
from rmlib.storage import ChapterResults, Num, Record, Table

__all__ = ["Matching", "ModelVerdict", "MereExposureResults", "chapter_results"]

Matching = Literal[FREQUENCY_SOURCES]


class ModelVerdict(Record):
    """One frequency matching and prompt valence: how many models have a pooled frequency slope above / below zero
    (95% CI clustered by word) and the claims page's outcome."""

    source: Matching
    prompts: Literal["positive", "negative"]
    n_above: int
    n_below: int
    n_models: int
    outcome: Literal[OUTCOMES]


class MereExposureResults(ChapterResults):
    CHAPTERS = ("mere_exposure",)

    mode: Literal[MODES]
    level: Literal["word", "token"]
    models: list[str]
    reward_kinds: list[str]
    prompts: list[str]
    valence_source: Literal[AFFECT_SOURCES]
    coverage: dict[Matching, Num]  # share of the run's distinct words each frequency list covers
    matchings: list[Matching]
    by_valence: Table  # shares of positive cells per matching × prompt valence, with the shuffled baseline
    by_dictionary: Table  # the same within each dictionary (Big Two, MFD2)
    by_model: list[ModelVerdict]
    pooled: Table  # per model and matching: the pooled frequency slope under each prompt valence
    source_agreement: Table  # per pair of matchings: how far their cell slopes agree
    kl: Table  # compute mode: slopes with the base LM's log-prob held fixed (empty in published mode)


def chapter_results(mode: str, valence_source: str, data: pd.DataFrame, cover: dict[str, float], sources: list[str],
                    share_table: pd.DataFrame, by_dict: pd.DataFrame, by_model: pd.DataFrame, pooled: pd.DataFrame,
                    agreement: pd.DataFrame, kl: pd.DataFrame) -> MereExposureResults:
    """The chapter's results from its data (:func:`~rmlib.analysis.exposure.verdicts.exposure_data`) and what the
    shares, dictionary, pooled-slope, verdict, agreement and LM-control cells computed."""
    return MereExposureResults(
        mode=mode, level=str(data["level"].iloc[0]), models=sorted(data["model"].unique()),
        reward_kinds=sorted(data["reward_kind"].unique()), prompts=sorted(data["prompt_key"].unique()),
        valence_source=valence_source, coverage=cover, matchings=sources, by_valence=share_table,
        by_dictionary=by_dict, by_model=by_model, pooled=pooled, source_agreement=agreement, kl=kl)
