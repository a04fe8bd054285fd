"""The EloEverything misalignment chapter's results: how far each RM's ranking of the items agrees with people's
(Spearman ρ with a Bonett–Wright interval, per model and prompt), which items the models over- and under-value most
and whether that depends on how the models are combined or scored, the rank difference by item form, and which
themes and WordNet supersenses are over-represented among the most undervalued items (per prompt first, FDR over
themes × prompts; pooled second). Each section is built where the chapter computes it, and its sentences are
rendered from it (``rmlib/report/prose/templates/elo_misalignment.md.j2``)."""
from __future__ import annotations

from typing import Literal

import pandas as pd

from rmlib.analysis import human_ratings as hr
from rmlib.storage import ChapterResults, JsonData, Num, Record, Section, Table

__all__ = ["Agreement", "ThemeByPrompt", "Run", "AgreementSummary", "WeakList", "Robustness", "Band", "Forms",
           "ThemeVerdict", "TopicsResults", "Trajectories", "EloMisalignmentResults", "ROBUST_SHARE", "run",
           "agreement_summary", "robustness", "forms", "topics", "trajectories", "chapter_results"]

#: a top list is robust to the aggregate when the median and the mean list share at least this share of its items
ROBUST_SHARE = 0.8


class Agreement(Record):
    """One model under one prompt: Spearman ρ with people (Bonett–Wright 95% CI) and Kendall τ."""

    prompt_key: str
    model: str
    rho: Num
    ci_low: Num
    ci_high: Num
    tau: Num


class ThemeByPrompt(Record):
    """One theme among one prompt's most undervalued items (FDR over themes × prompts)."""

    topic: str
    prompt: str
    direction: Literal["over", "under", "none"]
    ratio: Num
    p: Num
    p_fdr: Num
    n_flagged: int
    expected: Num
    n_items: int


class Run(Section):
    """What the run compares: how many models, items and prompts, whether human Elo is one rating per item, and
    whether every score is an implicit reward (an LM's log-probability)."""

    n_models: int
    n_items: int
    prompt_keys: list[str]
    n_prompts: int
    human_elo_same_across_prompts: bool
    implicit: bool  # every model's reward kind is an LM's


class AgreementSummary(Section):
    """The model × prompt cells of ρ: the lowest and the highest, the median, and how many intervals exclude 0."""

    n_cells: int
    median_rho: Num
    n_ci_above_0: int
    n_ci_below_0: int  # the model ranks items *against* people
    best_model: str
    best_prompt: str
    best_rho: Num
    worst_model: str
    worst_prompt: str
    worst_rho: Num


class WeakList(Section):
    """A top list whose median and mean versions share fewer than ROBUST_SHARE of their items."""

    prompt_key: str
    direction: str
    shared: int


class Robustness(Section):
    """Whether the top lists depend on the aggregate (median vs mean) or the score method (rank vs z), and the
    pooled extremes (:func:`hr.method_robustness`)."""

    top_k: int
    table: Table  # median vs mean top lists, per prompt and direction
    n_lists: int
    shared_min: int
    shared_max: int
    robust_share: float
    weak: list[WeakList]  # the lists that share fewer than robust_share of top_k
    n_weak: int
    n_items: int  # items in the pooled consensus
    method_rho: Num  # Spearman between the pooled rank and z differences
    overlap_over: float
    overlap_under: float
    most_over: list[str]
    most_under: list[str]


class Band(Section):
    """Rated single words of one valence band: mean rank difference over models and prompts (None: no item)."""

    rank_diff: Num
    n_items: int


class Forms(Section):
    """The rank and z difference by item form (averaged over models and prompts), the most over- and under-valued
    of the forms with at least ``min_items`` items, and positive vs negative words (:func:`hr.form_summary`)."""

    min_items: int
    rank_diff: dict[str, Num]  # per form
    z_diff: dict[str, Num]
    over_form: str
    over_rank_diff: Num
    over_z_diff: Num
    under_form: str
    under_rank_diff: Num
    under_z_diff: Num
    agree_sign: Num  # share of forms whose rank and z differences have the same sign
    positive: Band
    negative: Band


class ThemeVerdict(Section):
    """One theme per prompt, in topic order: the prompts on which it is over- and under-represented, and each
    prompt's test."""

    topic: str
    over: list[str]
    under: list[str]
    cells: list[ThemeByPrompt]


class TopicsResults(Section):
    """The topic test of :func:`hr.undervalued_topics` and the settings that produced it."""

    n_items: int
    n_with_topic: int
    n_flagged: int
    undervalued_share: float
    aggregate: Literal[hr.AGGREGATES]
    strata: int
    n_resamples: int
    no_topic: Table
    themes_by_prompt: list[ThemeByPrompt]
    theme_prompts: JsonData  # {theme: {"over": [prompts], "under": [prompts]}}
    themes_fdr_family: str
    themes: Table  # pooled over prompts (secondary), in topic order
    supersenses: Table
    # what the sentences state
    share_with_topic: Num
    n_without_topic: int
    n_not_wordnet_noun: int
    n_no_word: int
    no_topic_flagged: int  # items without a topic among the most undervalued, vs expected
    no_topic_expected: Num
    no_topic_p_fdr: Num
    n_sexuality: int  # items in human sexuality
    n_sexuality_other_word: int  # ... through a word of the title other than its head
    n_supersenses: int
    supersenses_differ: Table  # the supersenses significant after FDR: topic, direction, n_flagged, expected
    n_supersenses_differ: int
    n_theme_tests: int  # theme x prompt tests (0: no per-prompt consensus)
    n_themes: int
    n_prompts: int
    by_theme: list[ThemeVerdict]
    mixed: list[str]  # themes over-represented on one prompt and under- on another
    n_mixed: int


class Trajectories(Section):
    """The items drawn in the rank-trajectory chart, and how much an item's rank percentile varies over models."""

    prompt_key: str
    n_items: int
    median_sd: Num  # median over all items of the SD of the models' rank percentiles
    widest_item: str
    widest_sd: Num


class EloMisalignmentResults(ChapterResults):
    CHAPTERS = ("elo_misalignment",)
    # 2: topics.n_permutations is topics.n_resamples (one name for the resampling count)
    # 3: the sentences' sections (run, agreement_summary, robustness, forms, topics, trajectories); the run's, the
    #    agreement's, the robustness', the forms' and the trajectories' top-level keys move into them
    SCHEMA_VERSION = 3

    mode: Literal[hr.MODES]
    models: list[str]
    reward_kinds: dict[str, str]
    prompt_keys: list[str]
    run: Run
    interval: str
    agreement: list[Agreement]
    agreement_summary: AgreementSummary
    aggregate: Literal[hr.AGGREGATES]
    robustness: Robustness
    forms: Forms
    topics: TopicsResults
    trajectories: Trajectories


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
    spread = traj["spread"]
    return Trajectories(prompt_key=traj["prompt_key"], n_items=len(traj["chosen"]), median_sd=spread.median(),
                        widest_item=spread.idxmax(), widest_sd=spread.max())


def chapter_results(mode: str, elo: hr.EloScores, run_section: Run, agreement: pd.DataFrame,
                    agreement_section: AgreementSummary, aggregate: str, rob: Robustness, fs: Forms,
                    tp: TopicsResults, traj: Trajectories) -> EloMisalignmentResults:
    """The chapter's results from its scores (:func:`hr.elo_scores`), :func:`hr.human_agreement`'s table and its
    sections."""
    return EloMisalignmentResults(
        mode=mode, models=elo.models, reward_kinds=elo.kinds, prompt_keys=elo.prompt_keys, run=run_section,
        interval="Bonett-Wright", agreement=agreement[["prompt_key", "model", "rho", "ci_low", "ci_high", "tau"]],
        agreement_summary=agreement_section, aggregate=aggregate, robustness=rob, forms=fs, topics=tp,
        trajectories=traj)
