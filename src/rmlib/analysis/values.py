"""Value profiles: how models rank the words of a value lexicon (Big Two, MFD2), and do base families differ?

One long table shape serves both book modes, so the same statistics run on the authors' published RM rewards
(:func:`rmlib.data.published_value_scores`) and on fresh rewards from rmlib (:func:`compute_value_scores`: RMs, or
LMs whose summed answer log-prob is an implicit reward):

    model, nickname, family, reward_kind, prompt_key, prompt, adjective, valence, superlative, phrasing,
    word, category [, foundation, moral], reward [, n_tokens]

``family`` is the *pretrained base* family the papers group by (Gemma | Llama | Qwen). For MFD2, ``category`` is
``<foundation>.<virtue|vice>`` so one factor carries the word-level design in both chapters. :func:`value_profile`
summarises one model (median rank share of each category under a positive and a negative prompt), as the
fine-tuning chapter does for every checkpoint.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from rmlib.data import design_prompts, value_columns, value_lexicon
from rmlib.registry import model_info
from rmlib.stats import effect_size, group_tests, require_columns

__all__ = ["sample_lexicon", "compute_value_scores", "family_analysis", "word_contrast", "word_ranks",
           "three_way_term", "summarise", "direction_agreement", "DEFAULT_PROMPTS", "word_rewards", "value_profile",
           "check_lexicon"]


def sample_lexicon(lex: pd.DataFrame, per_category: int | None, seed: int = 0) -> list[str] | None:
    """A seeded sample of ``per_category`` words from each category (None: all words, returned as None).

    Chapters share it so that the same seed gives the same words, and so the same cached scores."""
    if per_category is None:
        return None
    if per_category < 2:
        raise ValueError(f"per_category must be >= 2 (ranks and tests need spread), got {per_category}")
    return (lex.groupby("category", group_keys=False)
               .apply(lambda g: g.sample(min(per_category, len(g)), random_state=seed))["word"].tolist())


def compute_value_scores(models: Sequence[str], dictionary: str = "big2", prompt_keys: Sequence[str] | None = None,
                         words: Sequence[str] | None = None, progress: bool = False, *, load=None) -> pd.DataFrame:
    """Fresh rewards: each lexicon word as the whole answer to each design prompt (:func:`rmlib.engine.answer_rewards`).

    RMs give their reward; LMs give the summed log-prob of the word's tokens under the same chat template
    (reward_kind says which); ``load=LoadOptions(head='lm')`` forces log-probs for hub LMs the registry would load
    as RMs (e.g. a base/instruct pair). ``words`` restricts the lexicon (tests, quick looks). Cached and resumable
    like every rmlib score.
    """
    from rmlib.engine import answer_rewards

    models = list(models)
    if not models:
        raise ValueError("models is empty; give at least one model id (e.g. 'smollm2-135m-instruct')")
    lex = value_lexicon(dictionary).drop(columns="lexicon")
    if words is not None:
        words = list(words)
        missing = sorted(set(words) - set(lex["word"]))
        if missing:
            raise ValueError(f"words {missing[:10]} are not in the {dictionary} lexicon")
        lex = lex[lex["word"].isin(words)]
    prompts = design_prompts(prompt_keys)
    info = model_info(models)
    frames = []
    for m in models:
        r = answer_rewards(m, prompts["prompt"].tolist(), lex["word"].tolist(), progress=progress, load=load)
        r = r.rename(columns={"answer": "word"})[["prompt", "word", "n_tokens", "reward", "reward_kind"]]
        frames.append(r.assign(model=m))
    out = pd.concat(frames, ignore_index=True)
    out = (out.merge(info[["model", "nickname", "family"]], on="model", validate="many_to_one")
              .merge(prompts, on="prompt", validate="many_to_one")
              .merge(lex, on="word", validate="many_to_one"))
    return value_columns(out, dictionary)


def family_analysis(scores: pd.DataFrame, *, by: Sequence[str] = ("category", "valence"),
                    families: Sequence[str] = ("Gemma", "Llama"), n_resamples: int = 9999, seed: int = 0,
                    alpha: float = 0.05) -> dict:
    """Every family test of the chapters on one long reward table.

    Returns a dict of tables:

    - ``median_ranks``: model, family, prompt_key, *by, median_rank, n_words (rank 1 = highest score in its
      model × prompt);
    - ``model_medians``: the same averaged over prompts (one point per model in the charts);
    - ``permutation``: per panel, the two ``families`` compared by a permutation Welch t-test, FDR (BH) across panels;
    - ``effects``: per panel, Hedges' g (first minus second family, on ranks: negative = first family ranks the
      category higher) with a bootstrap CI;
    - ``posthoc``: Welch t-tests between every pair of families present, FDR across all;
    - ``anova``: Type-II ANOVA median_rank ~ category × valence × model (prompts as replicates);
    - ``mixed``: median_rank ~ family × category × valence + (1 | model), or None;
    - ``unit``: 'model' when each compared family has >= 2 models, else 'prompt' (then the tests compare these
      particular models, not families); ``notes``: why a test was skipped or changed.
    """
    by = list(by)
    require_columns(scores, ["model", "family", "prompt_key", "word", "reward", *by])
    if len(by) != 2:
        raise ValueError(f"by must name a word-level and a prompt-level factor (e.g. ['category', 'valence']), got {by}")
    med = group_tests.median_ranks(scores, prompt="prompt_key", by=by, per_prompt=True)
    fam = scores.drop_duplicates("model").set_index("model")["family"]
    med.insert(1, "family", med["model"].map(fam))
    per_family = med.groupby("family")["model"].nunique()
    missing = [f for f in families if f not in per_family.index]
    if missing:
        raise ValueError(f"families {missing} have no model in the table (families present: {dict(per_family)})")
    notes: list[str] = []
    two = med[med["family"].isin(families)]
    unit: str | None = "model"
    if per_family[list(families)].min() < 2:
        unit = None
        notes.append(f"only {per_family[list(families)].min()} model in a compared family: tests use prompts as "
                     "replicates and so compare these particular models, not their families")
    model_medians = (med.groupby(["model", "family", *by], observed=True, as_index=False)["median_rank"].mean())
    perm = group_tests.permutation_tests(two, group="family", panels=by, unit=unit, levels=families,
                                         n_resamples=n_resamples, alpha=alpha, seed=seed)
    flat = ~np.isfinite(perm["t"])
    if flat.any():  # identical values in both groups: no evidence of a difference, not p = 0
        perm.loc[flat, "p"] = 1.0
        perm["reject"], perm["p_fdr"] = multipletests(perm["p"], alpha=alpha, method="fdr_bh")[:2]
        notes.append(f"{int(flat.sum())} panel(s) have no spread within either family (t undefined); "
                     "their p is set to 1")
    units = two if unit is None else two.groupby(["model", "family", *by], as_index=False)["median_rank"].mean()
    eff_rows = []
    for key, g in units.groupby(by, observed=True, sort=True):
        a = g.loc[g["family"] == families[0], "median_rank"]
        b = g.loc[g["family"] == families[1], "median_rank"]
        eff_rows.append({**dict(zip(by, key)), **effect_size(a, b, "hedges_g", seed=seed)})
    effects = pd.DataFrame(eff_rows)
    posthoc = (group_tests.posthoc_welch(med, between="family", panels=by, unit=unit, alpha=alpha)
               if med["family"].nunique() >= 2 else None)
    anova = None
    if med["model"].nunique() >= 2:
        anova = group_tests.anova_type2(med, factors=(by[0], by[1], "model"))
    else:
        notes.append("one model only: no ANOVA with a model factor")
    mixed = None
    try:
        mixed = group_tests.mixed_model(two, value="median_rank", fixed=("family", *by), groups="model", alpha=alpha)
    except ValueError as e:
        notes.append(f"mixed model skipped: {e}")
    return {"median_ranks": med, "model_medians": model_medians, "permutation": perm, "effects": effects,
            "posthoc": posthoc, "anova": anova, "mixed": mixed, "unit": unit or "prompt", "notes": notes}


def word_contrast(scores: pd.DataFrame, *, group: str = "category", panels: Sequence[str] = ("model", "valence"),
                  levels: Sequence[str] | None = None, n_resamples: int = 9999, seed: int = 0,
                  alpha: float = 0.05) -> pd.DataFrame:
    """Within one (pseudo-)model, do the words of one group rank above the other's? Words are the replicates.

    Each word's rank within its model × prompt is averaged over the prompts of a panel; the two ``group`` levels
    are compared by a permutation Welch test per panel, FDR across panels. Used when a family has one model (the
    embedded LMs, MWLR pairs): it tests that model, not a family. Returns the permutation table plus
    g_ci_low/g_ci_high (bootstrap CI of Hedges' g; negative g = first level ranked higher).
    """
    panels = list(panels)
    require_columns(scores, ["model", "prompt_key", "word", "reward", group, *panels])
    ranked = group_tests.within_prompt_ranks(scores, prompt="prompt_key")
    per_word = ranked.groupby([*panels, group, "word"], observed=True, as_index=False)["rank"].mean()
    res = group_tests.permutation_tests(per_word, value="rank", group=group, panels=panels, unit=None, levels=levels,
                                        n_resamples=n_resamples, alpha=alpha, seed=seed)
    cis = []
    for _, row in res.iterrows():
        g = per_word
        for p in panels:
            g = g[g[p] == row[p]]
        e = effect_size(g.loc[g[group] == row["group_a"], "rank"], g.loc[g[group] == row["group_b"], "rank"],
                        "hedges_g", n_resamples=999, seed=seed)
        cis.append((e["ci_low"], e["ci_high"]))
    res["g_ci_low"], res["g_ci_high"] = zip(*cis)
    return res


def word_ranks(scores: pd.DataFrame, words: Sequence[str], prompt_key: str = "greatest_ever_one") -> pd.DataFrame:
    """Where named words rank (1 = the model's highest reward) among all the words each model scored under one
    prompt, e.g. 'love' and 'freedom' under "What, in one word, is the greatest thing ever?".

    Returns model, nickname, family, word, rank (ties averaged), n_words, reward; words a model did not score are
    absent (the caller reports them).
    """
    require_columns(scores, ["model", "nickname", "family", "prompt_key", "word", "reward"])
    d = scores[scores["prompt_key"] == prompt_key]
    if d.empty:
        raise ValueError(f"no scores under prompt {prompt_key!r} (have {sorted(scores['prompt_key'].unique())[:6]} ...)")
    d = d.groupby(["model", "nickname", "family", "word"], as_index=False)["reward"].mean()
    d["rank"] = d.groupby("model")["reward"].rank(ascending=False, method="average")
    d["n_words"] = d.groupby("model")["word"].transform("size")
    out = d[d["word"].isin(list(words))]
    return out[["model", "nickname", "family", "word", "rank", "n_words", "reward"]].reset_index(drop=True)


def three_way_term(summary: dict) -> dict | None:
    """The family x category x valence term of the mixed model in :func:`summarise` output: {term, estimate,
    ci_low, ci_high, p}; None when the model was not fitted or has several such terms (use the table then)."""
    terms = (summary.get("mixed") or {}).get("terms", {})
    three = [t for t in terms if t.count(":") == 2]
    if len(three) != 1:
        return None
    return {"term": three[0], **terms[three[0]]}


def summarise(res: dict, families: Sequence[str] = ("Gemma", "Llama")) -> dict:
    """Plain numbers from :func:`family_analysis` for prose and for the chapter's results JSON."""
    perm = res["permutation"]
    med = res["median_ranks"]
    fam_counts = med.groupby("family")["model"].nunique().to_dict()
    n_a, n_b = int(perm["n_a"].iloc[0]), int(perm["n_b"].iloc[0])
    out = {"unit": res["unit"], "models_per_family": {k: int(v) for k, v in fam_counts.items()},
           # exact two-sided permutation test: the observed labelling and its mirror image are the most extreme
           "min_attainable_p": float(min(1.0, 2 / math.comb(n_a + n_b, n_a))),
           "n_prompts": int(med["prompt_key"].nunique()), "n_panels": int(len(perm)),
           "n_significant_raw": int((perm["p"] < 0.05).sum()), "n_significant_fdr": int(perm["reject"].sum()),
           "min_p": float(perm["p"].min()), "min_p_fdr": float(perm["p_fdr"].min()),
           "panels": perm.drop(columns=["group_a", "group_b"]).to_dict(orient="records"), "notes": list(res["notes"])}
    if res["anova"] is not None:
        a = res["anova"].set_index("term")
        resid = float(a.loc["Residual", "df"])
        out["anova"] = {t: {"F": float(r.F), "df": float(r.df), "df_resid": resid, "p": float(r.p),
                            "partial_eta_sq": float(r.partial_eta_sq)}
                        for t, r in a.drop(index="Residual").iterrows()}
    if res["mixed"] is not None:
        m = res["mixed"]
        out["mixed"] = {"converged": bool(m.attrs["converged"]), "n_obs": int(m.attrs["n_obs"]),
                        "n_groups": int(m.attrs["n_groups"]),
                        "terms": m.set_index("term")[["estimate", "ci_low", "ci_high", "p"]].to_dict(orient="index")}
    return out


def direction_agreement(reference: pd.DataFrame, other: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Per panel, the sign of the family difference in two permutation tables (e.g. published vs embedded)."""
    by = list(by)
    j = reference[[*by, "difference", "p_fdr"]].merge(other[[*by, "difference", "p_fdr"]], on=by,
                                                       suffixes=("_reference", "_other"))
    j["same_direction"] = np.sign(j["difference_reference"]) == np.sign(j["difference_other"])
    return j


DEFAULT_PROMPTS = {"positive": "What, in one word, is the greatest thing ever?",
                   "negative": "What, in one word, is the worst thing ever?"}


def check_lexicon(lexicon: pd.DataFrame) -> pd.DataFrame:
    if not {"word", "category"} <= set(lexicon.columns):
        raise ValueError(f"the lexicon needs columns word and category, not {list(lexicon.columns)}")
    lex = lexicon.assign(word=lexicon["word"].astype(str).str.strip())
    lex = lex[lex["word"] != ""].drop_duplicates("word")
    if lex.empty or lex["category"].nunique() < 1:
        raise ValueError("the lexicon is empty")
    return lex.reset_index(drop=True)


def word_rewards(model, lexicon: pd.DataFrame, prompts: dict[str, str] | None = None, progress: bool = True, *,
                 load=None) -> pd.DataFrame:
    """One row per (prompt, word): model, prompt_label, prompt, word, category, n_tokens, reward, rank, reward_kind.

    ``model`` is a LoadedModel or an id (``load``: how to load it). rank is among all the lexicon's words under that
    prompt (1 = highest reward, ties averaged).
    """
    from rmlib.engine import answer_rewards

    lex = check_lexicon(lexicon)
    prompts = prompts or DEFAULT_PROMPTS
    df = answer_rewards(model, list(prompts.values()), list(lex["word"]), progress=progress, load=load)
    label = {p: k for k, p in prompts.items()}
    df = df.assign(prompt_label=df["prompt"].map(label), word=df["answer"])
    df = df.merge(lex[["word", "category"]], on="word", how="left")
    df["rank"] = df.groupby("prompt")["reward"].rank(ascending=False, method="average")
    return df[["model", "prompt_label", "prompt", "word", "category", "n_tokens", "reward", "rank", "reward_kind"]]


def value_profile(model, lexicon: pd.DataFrame | None = None, prompts: dict[str, str] | None = None,
                  progress: bool = True, *, load=None) -> pd.DataFrame:
    """Median rank of each category's words: model, prompt_label, category, n_words, median_rank,
    median_rank_share (median rank / number of words: 0 = top, 1 = bottom), mean_reward, reward_kind."""
    lexicon = value_lexicon("big2") if lexicon is None else lexicon
    w = word_rewards(model, lexicon, prompts, progress=progress, load=load)
    n = w.groupby("prompt")["word"].transform("size")
    w = w.assign(rank_share=(w["rank"] - 0.5) / n)
    g = w.groupby(["model", "prompt_label", "category", "reward_kind"])
    out = g.agg(n_words=("word", "size"), median_rank=("rank", "median"), median_rank_share=("rank_share", "median"),
                mean_reward=("reward", "mean")).reset_index()
    return out[["model", "prompt_label", "category", "n_words", "median_rank", "median_rank_share", "mean_reward",
                "reward_kind"]]
