"""The mere-exposure chapter's results: with valence held fixed, how often an RM's score rises with word frequency
(the share of model × prompt cells with a positive frequency slope against a shuffled-frequency baseline, per
frequency matching, prompt valence and dictionary), each model's pooled frequency slope and the claims page's
verdict over models, how far the frequency matchings agree, and (compute mode) the slopes with the base LM's log-prob
held fixed. Each section is built where the chapter computes it, and its sentences are rendered from it
(``rmlib/report/prose/templates/mere_exposure.md.j2``); the tables the claims page reads stay where they were."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis.claims.rules import MOST, OUTCOMES
from rmlib.analysis.exposure import FREQUENCY_LABELS
from rmlib.analysis.words import MODES
from rmlib.data import AFFECT_SOURCES, FREQUENCY_SOURCES, RM_SCORE
from rmlib.storage import ChapterResults, Num, Record, Section, Table

__all__ = ["Matching", "ModelVerdict", "Scores", "Shares", "Dictionaries", "Verdicts", "Agreement", "LmControl",
           "MereExposureResults", "scores", "shares", "dictionaries", "verdicts", "agreement", "lm_control",
           "chapter_results"]

Matching = Literal[FREQUENCY_SOURCES]
Valence = Literal["positive", "negative"]
VALENCES = ("positive", "negative")


class ModelVerdict(Record):
    """One frequency matching and prompt valence: how many models have a pooled frequency slope above / below zero
    (95% CI clustered by word) and the claims page's outcome."""

    source: Matching
    prompts: Valence
    n_above: int
    n_below: int
    n_models: int
    outcome: Literal[OUTCOMES]


class RewardKind(Section):
    model: str
    kind: str


class Covered(Section):
    source: Matching
    label: str  # the matching in words (FREQUENCY_LABELS)
    share: Num  # share of the run's distinct words the list covers


class Scores(Section):
    """What was scored: models, prompts and words (published) or word-like tokens per model (compute), and how many
    of the words each frequency list covers."""

    mode: Literal[MODES]
    n_models: int
    n_prompts: int
    n_words: int | None  # published mode: distinct dictionary words
    tokens_min: int | None  # compute mode: the fewest / most word tokens of one model
    tokens_max: int | None
    reward_kinds: list[RewardKind]  # per model
    coverage: list[Covered]


class ShareRow(Section):
    source: Matching
    label: str
    n_positive: int
    n_cells: int
    share: Num
    null_low: Num  # the middle 95% of the shuffled shares
    null_high: Num
    p_greater: Num  # permutation p of the observed share against the shuffled ones


class ShareValence(Section):
    prompts: Valence
    heading: str  # "Positive" / "Negative"
    rows: list[ShareRow]  # one per matching of the run


class Shares(Section):
    """Per prompt valence, the share of positive slopes per matching next to its shuffled baseline, and in how many
    valenced rows the baseline is too wide to read a share against."""

    valences: list[ShareValence]
    n_rows: int  # valenced rows of the share table (every matching and subset)
    n_wide: int  # ... whose middle 95% of shuffled shares spans more than half the scale


class DictionaryRow(Section):
    dictionary: str
    prompts: str
    source: Matching
    label: str
    n_positive: int
    n_cells: int


class Dictionaries(Section):
    """The shares refitted within each dictionary: their range and the combinations below the claims page's rule
    (none in compute mode, whose tokens belong to no dictionary)."""

    n_combinations: int  # dictionary × prompt valence × matching
    share_min: Num
    share_max: Num
    most: float  # the claims page's MOST
    low: list[DictionaryRow]  # combinations with a share below MOST


class VerdictRow(Section):
    source: Matching
    label: str
    n_above: int
    n_below: int
    n_models: int
    outcome: Literal[OUTCOMES]


class VerdictValence(Section):
    prompts: Valence
    heading: str
    rows: list[VerdictRow]  # one per matching
    outcome: Literal[OUTCOMES] | None  # the outcome every matching gives, None when they differ
    against: list[VerdictRow]  # the matchings under which some models' slopes are clearly below zero


class Verdicts(Section):
    """Per prompt valence, the models with a pooled slope above / below zero per matching, and the verdict."""

    valences: list[VerdictValence]
    most: float


class AgreementPair(Section):
    a: Matching
    b: Matching
    a_label: str
    b_label: str
    rho: Num  # Spearman between the two matchings' cell slopes
    same_sign: Num  # share of cells whose slopes have the same sign


class Agreement(Section):
    pairs: list[AgreementPair]


class LmControl(Section):
    """Compute mode: the frequency slope of an LM's own log-prob (what the KL term rewards), and a trained RM's slope
    with and without its base LM's log-prob held fixed (medians over prompts)."""

    mode: Literal[MODES]
    has_reference: bool  # some model has a known reference LM
    n_lm_cells: int
    n_rm_cells: int
    lm_slope_min: Num
    lm_slope_max: Num
    rho_median: Num  # trained RMs: Spearman of reward and base-LM log-prob
    reward_slope_median: Num
    reward_slope_given_lm_median: Num


class MereExposureResults(ChapterResults):
    CHAPTERS = ("mere_exposure",)
    SCHEMA_VERSION = 2  # 2: the sections the sentences are rendered from (scores ... lm_control) are stored

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
    scores: Scores
    shares: Shares
    dictionaries: Dictionaries
    verdicts: Verdicts
    agreement: Agreement
    lm_control: LmControl


def scores(mode: str, data: pd.DataFrame, cover: dict[str, float]) -> Scores:
    """The section of the chapter's data (:func:`~rmlib.analysis.exposure.verdicts.exposure_data`) and its
    :func:`~rmlib.analysis.exposure.verdicts.frequency_coverage`."""
    if mode not in MODES:
        raise ValueError(f"MODE must be one of {MODES}, not {mode!r}")
    published = mode == "published"
    per_model = None if published else data.groupby("model")["token_id"].nunique()
    kinds = data.groupby("model")["reward_kind"].first()
    return Scores(mode=mode, n_models=data["model"].nunique(), n_prompts=data["prompt_key"].nunique(),
                  n_words=data["word"].nunique() if published else None,
                  tokens_min=None if published else int(per_model.min()),
                  tokens_max=None if published else int(per_model.max()),
                  reward_kinds=[RewardKind(model=m, kind=k) for m, k in kinds.items()],
                  coverage=[Covered(source=s, label=FREQUENCY_LABELS[s], share=c) for s, c in cover.items()])


def shares(share_table: pd.DataFrame, sources) -> Shares:
    """The section of :func:`rmlib.analysis.exposure.exposure_shares`' table for the run's matchings."""
    valenced = share_table[share_table["prompts"] != "all"]
    per = []
    for pv in VALENCES:
        rows = valenced[(valenced["prompts"] == pv) & valenced["source"].isin(list(sources))]
        per.append(ShareValence(prompts=pv, heading=pv.capitalize(), rows=[
            ShareRow(source=r.source, label=FREQUENCY_LABELS[r.source], n_positive=r.n_positive, n_cells=r.n_cells,
                     share=r.share, null_low=r.null_low, null_high=r.null_high, p_greater=r.p_greater)
            for r in rows.itertuples()]))
    wide = (valenced["null_high"] - valenced["null_low"]) > 0.5
    return Shares(valences=per, n_rows=len(valenced), n_wide=int(wide.sum()))


def dictionaries(by_dict: pd.DataFrame) -> Dictionaries:
    """The section of :func:`~rmlib.analysis.exposure.verdicts.dictionary_shares` (empty for token runs)."""
    if by_dict.empty:
        return Dictionaries(n_combinations=0, share_min=None, share_max=None, most=MOST, low=[])
    low = by_dict[by_dict["share"] < MOST]
    return Dictionaries(
        n_combinations=len(by_dict), share_min=by_dict["share"].min(), share_max=by_dict["share"].max(), most=MOST,
        low=[DictionaryRow(dictionary=r.dictionary, prompts=r.prompts, source=r.source,
                           label=FREQUENCY_LABELS[r.source], n_positive=r.n_positive, n_cells=r.n_cells)
             for r in low.itertuples()])


def _verdict_row(r) -> VerdictRow:
    return VerdictRow(source=r.source, label=FREQUENCY_LABELS[r.source], n_above=r.n_above, n_below=r.n_below,
                      n_models=r.n_models, outcome=r.outcome)


def verdicts(by_model: pd.DataFrame) -> Verdicts:
    """The section of :func:`~rmlib.analysis.exposure.verdicts.model_verdicts`."""
    per = []
    for pv in VALENCES:
        rows = by_model[by_model["prompts"] == pv]
        states = set(rows["outcome"])
        per.append(VerdictValence(prompts=pv, heading=pv.capitalize(),
                                  rows=[_verdict_row(r) for r in rows.itertuples()],
                                  outcome=states.pop() if len(states) == 1 else None,
                                  against=[_verdict_row(r) for r in rows[rows["n_below"] > 0].itertuples()]))
    return Verdicts(valences=per, most=MOST)


def agreement(pairs: pd.DataFrame) -> Agreement:
    """The section of :func:`~rmlib.analysis.exposure.verdicts.matching_agreement`."""
    return Agreement(pairs=[AgreementPair(a=r.a, b=r.b, a_label=FREQUENCY_LABELS[r.a], b_label=FREQUENCY_LABELS[r.b],
                                          rho=r.rho, same_sign=r.same_sign) for r in pairs.itertuples()])


def lm_control(kl: pd.DataFrame, mode: str) -> LmControl:
    """The section of :func:`~rmlib.analysis.exposure.verdicts.lm_controlled_slopes` (empty in published mode)."""
    if kl.empty:
        return LmControl(mode=mode, has_reference=False, n_lm_cells=0, n_rm_cells=0, lm_slope_min=None,
                         lm_slope_max=None, rho_median=None, reward_slope_median=None,
                         reward_slope_given_lm_median=None)
    rm, lm = kl[kl["reward_kind"] == RM_SCORE], kl[kl["reward_kind"] != RM_SCORE]
    return LmControl(mode=mode, has_reference=True, n_lm_cells=len(lm), n_rm_cells=len(rm),
                     lm_slope_min=lm["lm_slope"].min(), lm_slope_max=lm["lm_slope"].max(),
                     rho_median=rm["rho_reward_vs_lm_logprob"].median(), reward_slope_median=rm["reward_slope"].median(),
                     reward_slope_given_lm_median=rm["reward_slope_given_lm"].median())


def chapter_results(valence_source: str, data: pd.DataFrame, cover: dict[str, float], sources: list[str],
                    share_table: pd.DataFrame, by_dict: pd.DataFrame, by_model: pd.DataFrame, pooled: pd.DataFrame,
                    pairs: pd.DataFrame, kl: pd.DataFrame, *, scores: Scores, shares: Shares,
                    dictionaries: Dictionaries, verdicts: Verdicts, agreement: Agreement,
                    lm_control: LmControl) -> MereExposureResults:
    """The chapter's results from its data (:func:`~rmlib.analysis.exposure.verdicts.exposure_data`), the tables the
    shares, dictionary, pooled-slope, verdict, agreement and LM-control cells computed, and their sections."""
    return MereExposureResults(
        mode=scores.mode, level=str(data["level"].iloc[0]), models=sorted(data["model"].unique()),
        reward_kinds=sorted(data["reward_kind"].unique()), prompts=sorted(data["prompt_key"].unique()),
        valence_source=valence_source, coverage=cover, matchings=sources, by_valence=share_table,
        by_dictionary=by_dict, by_model=by_model, pooled=pooled, source_agreement=pairs, kl=kl, scores=scores,
        shares=shares, dictionaries=dictionaries, verdicts=verdicts, agreement=agreement, lm_control=lm_control)
