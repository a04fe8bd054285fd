"""The EloEverything misalignment chapter's results: how far each RM's ranking of the items agrees with people's
(Spearman ρ with a Bonett–Wright interval, per model and prompt), which items the models over- and under-value most
and whether that depends on how the models are combined or scored, the rank difference by item form, and which
themes and WordNet supersenses are over-represented among the most undervalued items (per prompt first, FDR over
themes × prompts; pooled second). Each section is built where the chapter computes it, and its sentences are
rendered from it (``rmbook/chapters/elo_misalignment/prose.md.j2``)."""
from __future__ import annotations

import pandas as pd

from rmbook.analysis.results.beside import Beside, beside_section
from rmbook.chapters.elo_misalignment import analysis as hr
from rmbook.chapters.elo_misalignment.types import (Agreement, ThemeByPrompt, Run, AgreementSummary, WeakList,
                                                    Robustness, Band, Forms, ThemeVerdict, TopicsResults,
                                                    Trajectories, EloMisalignmentResults)

__all__ = ["Agreement", "ThemeByPrompt", "Run", "AgreementSummary", "WeakList", "Robustness", "Band", "Forms",
           "ThemeVerdict", "TopicsResults", "Trajectories", "EloMisalignmentResults", "ROBUST_SHARE", "run",
           "agreement_summary", "robustness", "forms", "topics", "trajectories", "chapter_results", "Beside", "paper_rms"]

#: a top list is robust to the aggregate when the median and the mean list share at least this share of its items
ROBUST_SHARE = 0.8


def run(elo: hr.EloScores) -> Run:
    """The section of the scores (:func:`hr.elo_scores`)."""
    return Run(n_models=len(elo.models), n_items=len(elo.items), prompt_keys=elo.prompt_keys,
               n_prompts=len(elo.prompt_keys), human_elo_same_across_prompts=elo.same_elo,
               implicit=all(k.startswith("LM") for k in elo.kinds.values()))


def agreement_summary(agreement: pd.DataFrame) -> AgreementSummary:
    """The section of :func:`hr.human_agreement`'s table."""
    best, worst = agreement.loc[agreement["rho"].idxmax()], agreement.loc[agreement["rho"].idxmin()]
    return AgreementSummary(n_cells=len(agreement), median_rho=agreement["rho"].median(),
                            n_ci_above_0=int((agreement["ci_low"] > 0).sum()),
                            n_ci_below_0=int((agreement["ci_high"] < 0).sum()), best_model=best["model"],
                            best_prompt=best["prompt_key"], best_rho=best["rho"], worst_model=worst["model"],
                            worst_prompt=worst["prompt_key"], worst_rho=worst["rho"])


def robustness(rob: dict, top_k: int) -> Robustness:
    """The section of :func:`hr.method_robustness` (``rob``, run with ``top_k``)."""
    robust = rob["robust"]
    weak = robust[robust["shared"] < ROBUST_SHARE * top_k]
    return Robustness(top_k=top_k, table=robust, n_lists=len(robust), shared_min=int(robust["shared"].min()),
                      shared_max=int(robust["shared"].max()), robust_share=ROBUST_SHARE,
                      weak=[WeakList(prompt_key=r.prompt_key, direction=r.direction, shared=int(r.shared))
                            for r in weak.itertuples()], n_weak=len(weak), n_items=len(rob["consensus"]),
                      **{k: rob[k] for k in ("method_rho", "overlap_over", "overlap_under", "most_over", "most_under")})


def _band(val_mean: pd.DataFrame, band: str) -> Band:
    if band not in val_mean.index:
        return Band(rank_diff=None, n_items=0)
    return Band(rank_diff=val_mean.loc[band, "rank_diff"], n_items=int(val_mean.loc[band, "n_items"]))


def forms(fs: dict, min_items: int) -> Forms:
    """The section of :func:`hr.form_summary` (``fs``, run with ``min_items``)."""
    form_mean, big = fs["form_mean"], fs["big"]
    hi, lo = big["rank_diff"].idxmax(), big["rank_diff"].idxmin()
    return Forms(min_items=min_items, rank_diff=form_mean["rank_diff"].to_dict(), z_diff=form_mean["z_diff"].to_dict(),
                 over_form=hi, over_rank_diff=form_mean.loc[hi, "rank_diff"], over_z_diff=form_mean.loc[hi, "z_diff"],
                 under_form=lo, under_rank_diff=form_mean.loc[lo, "rank_diff"],
                 under_z_diff=form_mean.loc[lo, "z_diff"], agree_sign=fs["agree_sign"],
                 positive=_band(fs["valence_mean"], "positive"), negative=_band(fs["valence_mean"], "negative"))


def _by_theme(records: list[dict], where: dict) -> list[ThemeVerdict]:
    """Per theme (in topic order) its prompts each way and its tests, in the order they were run."""
    return [ThemeVerdict(topic=t, over=where[t]["over"], under=where[t]["under"],
                         cells=[r for r in records if r["topic"] == t]) for t in sorted(where)]


def topics(tp: dict, *, share: float, aggregate: str, strata: int, n_resamples: int) -> TopicsResults:
    """The section of :func:`hr.undervalued_topics` (``tp``, run with ``share``, ``strata`` and ``n_resamples`` on
    the consensus by ``aggregate``)."""
    summary = hr.topics_summary(tp, share=share, strata=strata, n_resamples=n_resamples)
    items, no_topic, bp = tp["topics"], tp["no_topic"], tp["by_prompt"]
    rules = items["rule"].value_counts()
    supersense = tp["enrich"]["supersense"]
    sig = supersense[supersense["direction"] != ""]
    where = summary["theme_prompts"]
    mixed = [t for t, d in where.items() if d["over"] and d["under"]]
    return TopicsResults(
        **{**summary, "themes": tp["enrich"]["theme"].sort_values("topic")}, aggregate=aggregate,
        share_with_topic=len(tp["with_topic"]) / len(items), n_without_topic=int(items["topic"].isna().sum()),
        n_not_wordnet_noun=int(rules.get("not a WordNet noun", 0)), n_no_word=int(rules.get("no word", 0)),
        no_topic_flagged=int(no_topic.loc["no topic", "n_flagged"]),
        no_topic_expected=no_topic.loc["no topic", "expected"], no_topic_p_fdr=no_topic.loc["no topic", "p_fdr"],
        n_sexuality=int(items["themes"].apply(lambda t: "human sexuality" in t).sum()),
        n_sexuality_other_word=int(items["sexuality_word"].notna().sum()), n_supersenses=len(supersense),
        supersenses_differ=sig[["topic", "direction", "n_flagged", "expected"]], n_supersenses_differ=len(sig),
        n_theme_tests=len(bp),
        n_themes=bp["topic"].nunique() if len(bp) else 0, n_prompts=bp["prompt"].nunique() if len(bp) else 0,
        by_theme=_by_theme(summary["themes_by_prompt"], where), mixed=mixed, n_mixed=len(mixed))


def trajectories(traj: dict) -> Trajectories:
    """The section of :func:`hr.rank_trajectories`."""
    spread = traj["spread"].dropna()  # empty with one model: an SD over one model is undefined
    return Trajectories(prompt_key=traj["prompt_key"], n_items=len(traj["chosen"]), median_sd=spread.median(),
                        widest_item=spread.idxmax() if len(spread) else None, widest_sd=spread.max())


def chapter_results(mode: str, elo: hr.EloScores, run_section: Run, agreement: pd.DataFrame,
                    agreement_section: AgreementSummary, aggregate: str, rob: Robustness, fs: Forms,
                    tp: TopicsResults, traj: Trajectories, beside: Beside | None = None) -> EloMisalignmentResults:
    """The chapter's results from its scores (:func:`hr.elo_scores`), :func:`hr.human_agreement`'s table and its
    sections."""
    return EloMisalignmentResults(
        mode=mode, models=elo.models, reward_kinds=elo.kinds, prompt_keys=elo.prompt_keys, run=run_section,
        interval="Bonett-Wright", agreement=agreement[["prompt_key", "model", "rho", "ci_low", "ci_high", "tau"]],
        agreement_summary=agreement_section, aggregate=aggregate, robustness=rob, forms=fs, topics=tp,
        trajectories=traj, beside=beside)


def paper_rms(found: dict | None) -> Beside | None:
    """Compute mode's section that keeps the paper RMs on the page (``found``: the analysis' ``beside_paper_rms``;
    None in published mode)."""
    return beside_section(found, "Spearman's ρ between the rewards and people's Elo ratings, averaged over the prompts", unit="EloEverything items")
