"""The mere-exposure chapter's results: with valence held fixed, how often an RM's score rises with word frequency
(the share of model × prompt cells with a positive frequency slope against a shuffled-frequency baseline, per
frequency matching, prompt valence and dictionary), each model's pooled frequency slope and the claims page's
verdict over models, how far the frequency matchings agree, and (compute mode) the slopes with the base LM's log-prob
held fixed. Each section is built where the chapter computes it, and its sentences are rendered from it
(``rmbook/chapters/mere_exposure/prose.md.j2``); the tables the claims page reads stay where they were."""
from __future__ import annotations

import pandas as pd

from rmbook.analysis.results.beside import Beside, beside_section
from rmbook.analysis.words import MODES
from rmbook.analysis.claims.rules import MOST
from rmbook.chapters.mere_exposure.analysis import FREQUENCY_LABELS
from rmbook.chapters.mere_exposure.types import (ModelVerdict, RewardKind, Covered, Scores, ShareRow, ShareValence,
                                                 Shares, DictionaryRow, Dictionaries, VerdictRow, VerdictValence,
                                                 Verdicts, AgreementPair, Agreement, LmControl, MereExposureResults,
                                                 Matching)
from rmlib.data import RM_SCORE

__all__ = ["Matching", "ModelVerdict", "Scores", "Shares", "Dictionaries", "Verdicts", "Agreement", "LmControl",
           "MereExposureResults", "scores", "shares", "dictionaries", "verdicts", "agreement", "lm_control",
           "chapter_results", "Beside", "paper_rms"]

VALENCES = ("positive", "negative")


def scores(mode: str, data: pd.DataFrame, cover: dict[str, float]) -> Scores:
    """The section of the chapter's data (:func:`~rmbook.chapters.mere_exposure.verdicts.exposure_data`) and its
    :func:`~rmbook.chapters.mere_exposure.verdicts.frequency_coverage`."""
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
    """The section of :func:`rmbook.chapters.mere_exposure.analysis.exposure_shares`' table for the run's matchings."""
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
    """The section of :func:`~rmbook.chapters.mere_exposure.verdicts.dictionary_shares` (empty for token runs)."""
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
    """The section of :func:`~rmbook.chapters.mere_exposure.verdicts.model_verdicts`."""
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
    """The section of :func:`~rmbook.chapters.mere_exposure.verdicts.matching_agreement`."""
    return Agreement(pairs=[AgreementPair(a=r.a, b=r.b, a_label=FREQUENCY_LABELS[r.a], b_label=FREQUENCY_LABELS[r.b],
                                          rho=r.rho, same_sign=r.same_sign) for r in pairs.itertuples()])


def lm_control(kl: pd.DataFrame, mode: str) -> LmControl:
    """The section of :func:`~rmbook.chapters.mere_exposure.verdicts.lm_controlled_slopes` (empty in published mode)."""
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
                    lm_control: LmControl, beside: Beside | None = None) -> MereExposureResults:
    """The chapter's results from its data (:func:`~rmbook.chapters.mere_exposure.verdicts.exposure_data`), the tables
    the shares, dictionary, pooled-slope, verdict, agreement and LM-control cells computed, and their sections."""
    return MereExposureResults(
        mode=scores.mode, level=str(data["level"].iloc[0]), models=sorted(data["model"].unique()),
        reward_kinds=sorted(data["reward_kind"].unique()), prompts=sorted(data["prompt_key"].unique()),
        valence_source=valence_source, coverage=cover, matchings=sources, by_valence=share_table,
        by_dictionary=by_dict, by_model=by_model, pooled=pooled, source_agreement=pairs, kl=kl, scores=scores,
        shares=shares, dictionaries=dictionaries, verdicts=verdicts, agreement=agreement, lm_control=lm_control,
        beside=beside)


def paper_rms(found: dict | None, source: str) -> Beside | None:
    """Compute mode's section that keeps the paper RMs on the page (``found``: the analysis' ``beside_paper_rms``;
    None in published mode)."""
    return beside_section(found, f"the pooled frequency slope on {FREQUENCY_LABELS.get(source, source)} frequencies, valence held fixed", unit="words")
