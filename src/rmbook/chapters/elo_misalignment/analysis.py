"""RMs against human ratings (EloEverything): the elo_misalignment chapter's analysis, on :mod:`.misalignment`.

:func:`elo_scores` reads the models' scores of the same items under each prompt (published, or computed now);
:func:`human_agreement` correlates each model with people (:func:`mean_agreement`: over the prompts;
:func:`beside_paper_rms`: computed models placed among the paper RMs); :func:`consensus_tables` finds the items the
models together over- and under-value, :func:`method_robustness` whether that depends on how models and scores are
combined, :func:`form_summary` which kinds of item they misjudge, :func:`undervalued_topics` which WordNet topics
and the paper's themes are over-represented among the most undervalued items (per prompt first: pooling the
prompts cancels opposite effects; pooled second), and :func:`rank_trajectories` how
single items move between rankers. The chapter's results type is :mod:`rmbook.chapters.elo_misalignment.results`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from rmbook.analysis import beside
from rmbook.analysis.categories import item_categories
from rmbook.analysis.choices import AGGREGATES, PUBLISHED_OR_COMPUTE
from rmbook.chapters.elo_misalignment.misalignment import (consensus_misalignment, misalignment, misalignment_by,
                                                           top_overlap_by)
from rmbook.chapters.elo_misalignment.topics import item_topics, theme_members
from rmlib import engine
from rmlib.data import ELO_PROMPTS, RM_SCORE_PUBLISHED, elo_items, elo_models, load_elo
from rmlib.errors import as_list
from rmlib.registry import get_spec
from rmlib.stats import rank_strata, spearman_ci, topic_enrichment
from rmlib.stats.enrichment import topic_enrichment_by

__all__ = ["EloScores", "MODES", "AGGREGATES", "elo_scores", "human_agreement", "mean_agreement", "beside_paper_rms",
           "first_items",
           "consensus_tables", "method_robustness", "form_summary", "undervalued_topics", "theme_prompts",
           "topics_summary", "rank_trajectories"]

MODES = PUBLISHED_OR_COMPUTE
EXTRA = ["form", "valence_band"]   # item features carried into the consensus tables


@dataclass
class EloScores:
    """Scores of the same items under each prompt: ``scores`` has item, prompt_key, elo_score, elo_rank, one column
    per model id, form and valence_band; ``human`` the items of the first prompt in human order."""

    scores: pd.DataFrame
    models: list[str]
    label: dict[str, str]          # model id -> nickname (or the id)
    kinds: dict[str, str]          # model id -> reward kind
    prompt_keys: list[str]
    human: pd.DataFrame
    same_elo: bool                 # human Elo is the same under every prompt (one rating per item)

    @property
    def items(self) -> list[str]:
        return self.human["item"].tolist()


def elo_scores(mode: str = "published", models=None, prompt_keys=None, n_items: int | None = None, *,
               extra_items=(), load=None) -> EloScores:
    """The models' scores of ``n_items`` items spread over the human ranking, under each prompt.

    ``published``: the paper RMs' released scores (``models`` None: all 10); ``compute``: each item scored now as
    the whole answer (:func:`rmlib.engine.answer_rewards`) by any ``models``. ``extra_items`` (EloEverything titles)
    are scored as well, in ``scores`` but not in ``human`` or :attr:`EloScores.items`, which stay the spread: a value
    card's identity items, whose placement needs the same universe as the spread's.
    """
    if mode not in MODES:
        raise ValueError(f"mode={mode!r}: use 'published' or 'compute'")
    prompt_keys = list(ELO_PROMPTS) if prompt_keys is None else as_list(prompt_keys, "prompt_keys")
    unknown = [k for k in prompt_keys if k not in ELO_PROMPTS]
    if unknown or not prompt_keys:
        raise ValueError(f"PROMPT_KEYS {unknown or prompt_keys} unknown; choose from {list(ELO_PROMPTS)}")
    if mode == "published":
        models = elo_models(models)
    elif not models:
        raise ValueError("MODE='compute' needs MODELS, e.g. ['smollm2-135m-instruct']")
    models = as_list(models, "models")
    human = elo_items(prompt_keys[0], n_items, min_items=20)   # the same items under every prompt
    items = human["item"].tolist()
    wide = load_elo("wide")
    unknown = sorted(set(extra_items) - set(wide["item"]))
    if unknown:
        raise ValueError(f"extra_items {unknown[:5]} are not EloEverything items")
    items += [i for i in dict.fromkeys(extra_items) if i not in set(human["item"])]
    sub = wide[wide["prompt_key"].isin(prompt_keys) & wide["item"].isin(items)]
    same_elo = bool(sub.groupby("item")["elo_score"].nunique().max() == 1)
    if mode == "published":
        scores = sub[["item", "prompt_key", "elo_score", "elo_rank", *models]].copy()
        kinds = {m: RM_SCORE_PUBLISHED for m in models}
    else:

        prompt_of = {ELO_PROMPTS[k].text: k for k in prompt_keys}
        parts, kinds = [], {}
        for m in models:
            r = engine.answer_rewards(m, list(prompt_of), items, progress=False, load=load)
            kinds[m] = r["reward_kind"].iloc[0]
            parts.append(r.assign(prompt_key=r["prompt"].map(prompt_of)).pivot(
                index=["answer", "prompt_key"], columns="model", values="reward"))
        computed = pd.concat(parts, axis=1).reset_index().rename(columns={"answer": "item"})
        scores = sub[["item", "prompt_key", "elo_score", "elo_rank"]].merge(computed, on=["item", "prompt_key"])
    label = {m: (get_spec(m).nickname or m) for m in models}
    scores = scores.merge(item_categories(items)[["item", *EXTRA]], on="item")
    return EloScores(scores, models, label, kinds, prompt_keys, human, same_elo)


def human_agreement(scores: pd.DataFrame, models, label: dict | None = None) -> pd.DataFrame:
    """Spearman ρ (Bonett–Wright 95% CI) and Kendall τ between human Elo and each model's reward, per prompt.

    Columns: prompt_key, model (``label``-led), rho, ci_low, ci_high, tau, model_prompt."""
    label = label or {}
    rows = []
    for key, d in scores.groupby("prompt_key", sort=False):
        for m in models:
            sp = spearman_ci(d["elo_score"], d[m])
            rows.append({"prompt_key": key, "model": label.get(m, m), "rho": sp["rho"], "ci_low": sp["ci_low"],
                         "ci_high": sp["ci_high"], "tau": float(sps.kendalltau(d["elo_score"], d[m]).statistic)})
    out = pd.DataFrame(rows)
    out["model_prompt"] = out["model"] + " · " + out["prompt_key"]
    return out


def mean_agreement(scores: pd.DataFrame, models, label: dict) -> pd.DataFrame:
    """Per model, Spearman's ρ between its rewards of the EloEverything items and the human Elo ratings, per prompt
    (:func:`human_agreement`), then averaged over the prompts: model (its ``label``), rho, rho_min, rho_max (over the
    prompts), n_items, n_prompts. ``scores``: the wide table of :func:`elo_scores`."""
    per_prompt = human_agreement(scores, models, label)
    out = per_prompt.groupby("model", sort=True)["rho"].agg(rho="mean", rho_min="min", rho_max="max")
    return out.reset_index().assign(n_items=int(scores["item"].nunique()),
                                    n_prompts=int(scores["prompt_key"].nunique()))


def beside_paper_rms(elo: EloScores, n_items: int | None) -> dict:
    """Compute mode: each computed model's agreement with people (:func:`mean_agreement`) placed among the paper RMs'
    on the same items (``n_items``, the run's spread) under the same prompts, so the paper RMs stay on the page.
    Returns own, reference, placements, prompts and missing (always empty: the paper RMs were scored under all three
    EloEverything prompts), as :func:`rmbook.analysis.beside.beside_words` does."""
    ref = elo_scores("published", None, elo.prompt_keys, n_items)
    if ref.items != elo.items:
        raise ValueError("the paper RMs' released scores and the run cover different EloEverything items")
    measure = "Spearman's ρ with people"
    own = mean_agreement(elo.scores, elo.models, elo.label).rename(columns={"model": "label", "rho": "estimate"})
    reference = mean_agreement(ref.scores, ref.models, ref.label).rename(columns={"model": "label", "rho": "estimate"})
    own, reference = own.assign(measure=measure, n_words=len(elo.items)), reference.assign(measure=measure)
    return {"own": own, "reference": reference, "placements": beside.placements(own, reference),
            "prompts": list(elo.prompt_keys), "missing": []}


def first_items(df: pd.DataFrame, models, n: int = 5) -> pd.DataFrame:
    """The first ``n`` items of a wide EloEverything table as a reader scans them: one column per item, one row per
    human number (Elo rank, score, matches) and per RM (by nickname), so ten RMs make rows, not columns that run past
    the page (#43 item 3)."""
    head = df.head(n).set_index("item")[["elo_rank", "elo_score", "elo_matches", *models]]
    names = {m: get_spec(m).nickname or m for m in models}
    return head.rename(columns={"elo_rank": "Elo rank", "elo_score": "Elo score", "elo_matches": "matches",
                                **names}).T.rename_axis(index=None, columns="item")


def consensus_tables(elo: EloScores) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Per-model misalignment under each prompt (rank and z differences, models labelled) and, for each way of
    combining the models (median, mean), the consensus per prompt and pooled over prompts (prompt_key 'pooled')."""
    s = elo.scores
    mis = pd.concat([
        misalignment(s[s["prompt_key"] == key].drop(columns=["prompt_key", "elo_rank"]), "elo_score", elo.models,
                     item="item").assign(prompt_key=key)
        for key in elo.prompt_keys], ignore_index=True)
    mis["model"] = mis["model"].map(elo.label)
    cons = {agg: pd.concat([consensus_misalignment(mis, ["prompt_key"], aggregate=agg, extra=EXTRA),
                            consensus_misalignment(mis, aggregate=agg, extra=EXTRA).assign(prompt_key="pooled")],
                           ignore_index=True) for agg in AGGREGATES}
    return mis, cons


def method_robustness(cons: dict[str, pd.DataFrame], aggregate: str, top_k: int) -> dict:
    """Do the top-``top_k`` lists depend on how models are combined (median vs mean) or on the score method (rank vs
    z differences)? Returns the overlap table (robust, per prompt and direction), the pooled consensus, method_rho
    (Spearman between pooled rank and z differences), overlap_over/under (shared share of the pooled top lists) and
    the three most over- and under-valued items."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"AGGREGATE={aggregate!r}: use one of {AGGREGATES}")
    other = "mean" if aggregate == "median" else "median"
    consensus = cons[aggregate][cons[aggregate]["prompt_key"] == "pooled"]
    robust = top_overlap_by(cons[aggregate], cons[other], "prompt_key", top_k, names=(aggregate, other))
    shared = {d: len(set(getattr(consensus, f)(top_k, "rank_diff")["item"])
                     & set(getattr(consensus, f)(top_k, "z_diff")["item"])) / top_k
              for d, f in (("over", "nlargest"), ("under", "nsmallest"))}
    return {"robust": robust, "consensus": consensus, "other": other,
            "method_rho": float(sps.spearmanr(consensus["rank_diff"], consensus["z_diff"]).statistic),
            "overlap_over": shared["over"], "overlap_under": shared["under"],
            "most_over": consensus.nlargest(3, "rank_diff")["item"].tolist(),
            "most_under": consensus.nsmallest(3, "rank_diff")["item"].tolist()}


def form_summary(mis: pd.DataFrame, consensus: pd.DataFrame, *, n_resamples: int = 999,
                 min_items: int = 20) -> dict:
    """Misalignment by item form and by word valence: per model with cluster-bootstrap CIs (by_form, by_valence,
    with a ``model_cat`` label for the charts), and averaged over models (form_mean, valence_mean: rank_diff, z_diff,
    n_items, and per form the share of models whose CI is above / below 0). ``big``: the forms with at least
    ``min_items`` items, which the findings name."""
    by_form = misalignment_by(mis, "form", n_resamples=n_resamples)
    by_val = misalignment_by(mis, "valence_band", n_resamples=n_resamples)
    for frame, col in ((by_form, "form"), (by_val, "valence_band")):
        frame["model_cat"] = frame[col].astype(str) + " · " + frame["model"]
    form_mean = mis.groupby("form")[["rank_diff", "z_diff"]].mean()
    form_mean["n_items"] = consensus.groupby("form").size()
    form_mean["share_models_ci_above_0"] = (by_form.assign(over=by_form["rank_diff_ci_low"] > 0)
                                           .groupby("form")["over"].mean())
    form_mean["share_models_ci_below_0"] = (by_form.assign(under=by_form["rank_diff_ci_high"] < 0)
                                            .groupby("form")["under"].mean())
    big = form_mean[form_mean["n_items"] >= min_items]
    if big.empty:
        raise ValueError(f"no item form has {min_items} items; raise N_ITEMS or lower MIN_CATEGORY_ITEMS")
    val_mean = mis.groupby("valence_band")[["rank_diff", "z_diff"]].mean()
    val_mean["n_items"] = consensus.groupby("valence_band").size()
    return {"by_form": by_form, "by_valence": by_val, "form_mean": form_mean, "valence_mean": val_mean, "big": big,
            "agree_sign": float((np.sign(form_mean["rank_diff"]) == np.sign(form_mean["z_diff"])).mean())}


def undervalued_topics(consensus: pd.DataFrame, *, per_prompt: pd.DataFrame | None = None, share: float = 0.1,
                       strata: int = 10, n_resamples: int = 999) -> dict:
    """Which of the paper's themes are over- or under-represented among the ``share`` most undervalued items under
    each prompt, and, pooled over prompts, which themes and WordNet supersenses are (permutation test within
    ``strata`` bins of the human rank, and without them), and whether items without a topic are.

    ``per_prompt`` is the per-prompt consensus (rows with a ``prompt_key``; a 'pooled' row set is ignored). Each
    prompt flags its own ``share`` most undervalued items, and the themes are tested per prompt with one FDR across
    themes x prompts (:func:`rmlib.stats.enrichment.topic_enrichment_by`): the prompts ask different questions
    ('greatest' vs what humans most prefer), and a theme the models undervalue under one and overvalue under
    another would cancel in the pooled consensus. The pooled test is kept as the secondary summary. Returns topics
    (per item), with_topic, n_flagged, enrich (supersense, theme: pooled), by_prompt (theme x prompt) and
    no_topic."""
    tp = item_topics(consensus["item"])
    with_topic = tp.dropna(subset=["topic"])
    n_flag = max(1, int(round(share * len(consensus))))
    flagged = consensus.nsmallest(n_flag, "rank_diff")["item"]
    bins = rank_strata(consensus.set_index("item")["human_rank"], strata)
    themes = theme_members(with_topic).rename(columns={"theme": "topic"})
    enrich = {}
    for name, labels in (("supersense", with_topic[["item", "topic"]]), ("theme", themes)):
        strat = topic_enrichment(labels, flagged, universe=with_topic["item"], strata=bins, n_resamples=n_resamples)
        plain = topic_enrichment(labels, flagged, universe=with_topic["item"], n_resamples=n_resamples)
        enrich[name] = strat.merge(plain[["topic", "ratio", "p_fdr"]], on="topic", suffixes=("", "_unstratified"))
    by_prompt = pd.DataFrame()
    if per_prompt is not None:
        pp = per_prompt[per_prompt["prompt_key"] != "pooled"]
        flagged_by = {key: d.nsmallest(max(1, int(round(share * len(d)))), "rank_diff")["item"]
                      for key, d in pp.groupby("prompt_key", sort=False)}
        by_prompt = topic_enrichment_by(themes, flagged_by, group="prompt", universe=with_topic["item"], strata=bins,
                                        n_resamples=n_resamples)
    no_topic = topic_enrichment(tp.assign(topic=np.where(tp["topic"].isna(), "no topic", "has a topic")), flagged,
                                strata=bins, n_resamples=n_resamples).set_index("topic")
    return {"topics": tp, "with_topic": with_topic, "n_flagged": n_flag, "enrich": enrich, "by_prompt": by_prompt,
            "no_topic": no_topic}


def theme_prompts(by_prompt: pd.DataFrame) -> dict:
    """Per theme, the prompts on which it is over- and under-represented among the most undervalued items (joint
    FDR of :func:`undervalued_topics`): {theme: {"over": [...], "under": [...]}}; every tested theme is a key."""
    return {t: {d: g.loc[g["direction"] == d, "prompt"].tolist() for d in ("over", "under")}
            for t, g in by_prompt.groupby("topic", sort=True)}


def _by_prompt_records(by_prompt: pd.DataFrame) -> list[dict]:
    """The per-prompt theme table as records: topic, prompt, direction ('over'|'under'|'none'), ratio, p, p_fdr,
    p_fdr_se, n_flagged, expected, n_items."""
    if by_prompt.empty:
        return []
    cols = ["topic", "prompt", "direction", "ratio", "p", "p_fdr", "p_fdr_se", "n_flagged", "expected", "n_items"]
    return by_prompt.assign(direction=by_prompt["direction"].replace("", "none"))[cols].to_dict("records")


def topics_summary(tp: dict, *, share: float, strata: int, n_resamples: int) -> dict:
    """The numbers the chapter keeps of :func:`undervalued_topics` (and the settings that produced them)."""
    return {"n_items": int(len(tp["topics"])), "n_with_topic": int(len(tp["with_topic"])), "n_flagged": tp["n_flagged"],
            "undervalued_share": share, "strata": strata, "n_resamples": n_resamples,
            "no_topic": tp["no_topic"].reset_index().to_dict("records"),
            "themes_by_prompt": _by_prompt_records(tp["by_prompt"]),
            "theme_prompts": theme_prompts(tp["by_prompt"]) if len(tp["by_prompt"]) else {},
            "themes_fdr_family": "themes x prompts (Benjamini-Hochberg)",
            "themes": tp["enrich"]["theme"].to_dict("records"),
            "supersenses": tp["enrich"]["supersense"].to_dict("records")}


def rank_trajectories(elo: EloScores, consensus: pd.DataFrame, n_items: int) -> dict:
    """Rank percentiles (1 = top) of a few items under the first prompt, for people and each model: the most
    over-valued, the most under-valued and the humans' favourites (``n_items`` / 3 each). Returns traj (long),
    order (rankers), chosen (items) and spread (per item, the SD of the models' percentiles, over all items)."""
    key0 = elo.prompt_keys[0]
    d0 = elo.scores[elo.scores["prompt_key"] == key0]
    n0 = len(d0)
    pct = pd.DataFrame({"item": d0["item"], "humans": d0["elo_score"].rank(ascending=False) / n0 * 100})
    for m in elo.models:
        pct[elo.label[m]] = d0[m].rank(ascending=False) / n0 * 100
    k = max(1, n_items // 3)
    chosen = list(dict.fromkeys(
        consensus.nlargest(k, "rank_diff")["item"].tolist() + consensus.nsmallest(k, "rank_diff")["item"].tolist()
        + elo.human.nsmallest(k, "elo_rank")["item"].tolist()))
    order = ["humans"] + [elo.label[m] for m in elo.models]
    traj = pct[pct["item"].isin(chosen)].melt(id_vars="item", var_name="ranker", value_name="rank percentile")
    spread = pct.set_index("item")[[elo.label[m] for m in elo.models]].std(axis=1)
    return {"traj": traj, "order": order, "chosen": chosen, "spread": spread, "prompt_key": key0}
