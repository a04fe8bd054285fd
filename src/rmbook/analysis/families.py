"""Do base families differ in how their models rank a value lexicon? The tests of the Big Two and MFD2 chapters.

Every function takes the long value-score table of :mod:`rmbook.analysis.values` (published or freshly computed
rewards alike) and returns tables a test can check: permutation tests with the model as the unit of replication,
effect sizes, ANOVA, post-hoc tests and a mixed model (:func:`family_analysis`); the same comparison for every
table of a run (:func:`family_analyses`); a word-level contrast inside one (pseudo-)model (:func:`word_contrast`);
and whether freshly computed scores point the same way as the published ones (:func:`compare_with_published`).
The chapters' results type is :mod:`rmbook.chapters.value_profiles.results`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from rmlib.stats import effect_size, group_tests, require_columns

__all__ = ["family_analysis", "family_analyses", "word_contrast", "interaction_test", "summarise",
           "direction_agreement", "compare_with_published"]


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
    effects = _family_effects(units, by, families, seed)
    posthoc = (group_tests.posthoc_welch(med, between="family", panels=by, unit=unit, alpha=alpha)
               if med["family"].nunique() >= 2 else None)
    anova, mixed = _model_fits(med, two, by, alpha, notes)
    return {"median_ranks": med, "model_medians": model_medians, "permutation": perm, "effects": effects,
            "posthoc": posthoc, "anova": anova, "mixed": mixed, "unit": unit or "prompt", "notes": notes}


def _family_effects(units: pd.DataFrame, by: list[str], families: Sequence[str], seed: int) -> pd.DataFrame:
    """Per panel, Hedges' g of the first family minus the second on ``units``' median ranks, with a bootstrap CI."""
    rows = []
    for key, g in units.groupby(by, observed=True, sort=True):
        a = g.loc[g["family"] == families[0], "median_rank"]
        b = g.loc[g["family"] == families[1], "median_rank"]
        rows.append({**dict(zip(by, key)), **effect_size(a, b, "hedges_g", seed=seed)})
    return pd.DataFrame(rows)


def _model_fits(med: pd.DataFrame, two: pd.DataFrame, by: list[str], alpha: float, notes: list[str]):
    """The Type-II ANOVA over all models and the mixed model over the compared families' (None when it cannot be
    fitted); why one is missing goes into ``notes``, which the page shows to readers."""
    anova = None
    if med["model"].nunique() >= 2:
        anova = group_tests.anova_type2(med, factors=(by[0], by[1], "model"))
    else:
        notes.append("one model only: no ANOVA with a model factor")
    mixed, n_models = None, two["model"].nunique()
    if n_models < 3:
        notes.append(f"the mixed model (a random intercept per model) needs at least 3 models and this table has "
                     f"{n_models}, so it is not fitted")
    else:
        try:
            mixed = group_tests.mixed_model(two, value="median_rank", fixed=("family", *by), groups="model",
                                            alpha=alpha)
        except ValueError as e:
            notes.append(f"the mixed model (a random intercept per model) could not be fitted to this table: {e}")
    return anova, mixed


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


def interaction_test(median_ranks: pd.DataFrame, *, families: Sequence[str] = ("Gemma", "Llama"),
                     category: tuple[str, str] = ("Agency", "Communion"),
                     valence: tuple[str, str] = ("positive", "negative"), n_resamples: int = 9999,
                     seed: int = 0) -> dict:
    """The family x category x valence interaction tested at the unit the claim is about: the model.

    The mixed model of :func:`family_analysis` (as in the authors' R script) treats every prompt as an independent
    replicate, so with 54 prompts even the family main effect looks significant. Here each model gives one number,
    its interaction contrast ``(A - C)[positive] - (A - C)[negative]``, where ``A - C`` is the median rank of the
    first ``category`` minus that of the second, averaged over the prompts of a valence. The two ``families`` are
    compared by an exact permutation Welch test over models (:func:`rmlib.stats.group_tests.permutation_tests`).

    Sign: ``difference`` is first family minus second. For the claim "Gemma favours communion, Llama agency, and
    the preference turns round under negative prompts", Gemma's Agency - Communion rank gap is larger under
    positive prompts than under negative ones, more than Llama's: ``claimed_sign`` +1.

    Returns {contrast, difference, p, n_a, n_b, min_attainable_p, claimed_sign, per_model: [{model, family,
    contrast}]}.
    """
    require_columns(median_ranks, ["model", "family", "category", "valence", "median_rank"])
    per = (median_ranks[median_ranks["family"].isin(families)]
           .groupby(["model", "family", "valence", "category"], observed=True)["median_rank"].mean()
           .unstack(["valence", "category"]))
    needed = [(v, c) for v in valence for c in category]
    missing = [k for k in needed if k not in per.columns]
    if missing:
        raise ValueError(f"the interaction contrast needs every valence x category cell; missing {missing}")
    if per[needed].isna().any().any():
        raise ValueError("a model lacks a valence x category cell; the contrast needs all four per model")
    gap = {v: per[(v, category[0])] - per[(v, category[1])] for v in valence}
    contrast = (gap[valence[0]] - gap[valence[1]]).rename("contrast").reset_index()
    perm = group_tests.permutation_tests(contrast, value="contrast", group="family", panels=(), unit="model",
                                         levels=families, n_resamples=n_resamples, seed=seed).iloc[0]
    n_a, n_b = int(perm["n_a"]), int(perm["n_b"])
    return {"contrast": f"({category[0]} − {category[1]} median rank)[{valence[0]}] − (…)[{valence[1]}], "
                        f"{families[0]} − {families[1]}",
            "difference": float(perm["difference"]), "p": float(perm["p"]), "n_a": n_a, "n_b": n_b,
            "min_attainable_p": group_tests.exact_two_group_floor(n_a, n_b), "claimed_sign": 1,
            "per_model": contrast.to_dict(orient="records")}


def summarise(res: dict, families: Sequence[str] = ("Gemma", "Llama")) -> dict:
    """Plain numbers from :func:`family_analysis` for prose and for the chapter's results JSON."""
    perm = res["permutation"]
    med = res["median_ranks"]
    fam_counts = med.groupby("family")["model"].nunique().to_dict()
    n_a, n_b = int(perm["n_a"].iloc[0]), int(perm["n_b"].iloc[0])
    out = {"unit": res["unit"], "models_per_family": {k: int(v) for k, v in fam_counts.items()},
           "min_attainable_p": group_tests.exact_two_group_floor(n_a, n_b),
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



def family_analyses(tables: dict[str, pd.DataFrame], *, by: Sequence[str] = ("category", "valence"),
                    families: Sequence[str] = ("Gemma", "Llama"), n_resamples: int = 9999,
                    seed: int = 0) -> dict[str, dict]:
    """:func:`family_analysis` of every table (e.g. published and computed scores) whose models include both
    ``families``; a table without them is left out (the chapter says so)."""
    if len(families) != 2:
        raise ValueError(f"families must name two base families to compare, got {list(families)}")
    return {key: family_analysis(t, by=by, families=families, n_resamples=n_resamples, seed=seed)
            for key, t in tables.items() if set(families) <= set(t["family"])}


def compare_with_published(tables: dict[str, pd.DataFrame], results: dict[str, dict], *,
                           by: Sequence[str] = ("category", "valence"), families: Sequence[str] = ("Gemma", "Llama"),
                           n_resamples: int = 9999, seed: int = 0) -> dict | None:
    """Do computed scores show the published family pattern? Like with like: the published analysis is rerun on the
    computed table's prompts and words, and each panel's sign of the family difference is compared.

    Returns agreement (:func:`direction_agreement`), same, panels, n_prompts, n_words (of the shared subset),
    n_significant (computed panels significant after FDR), unit (of the computed tests) and implicit (whether the
    computed scores are LM log-probs); None unless both tables were analysed.
    """
    if "compute" not in results or "published" not in results:
        return None
    computed = tables["compute"]
    same = tables["published"][tables["published"]["prompt_key"].isin(computed["prompt_key"])]
    same = same[same["word"].isin(computed["word"])]
    reference = family_analysis(same, by=by, families=families, n_resamples=n_resamples, seed=seed)
    agree = direction_agreement(reference["permutation"], results["compute"]["permutation"], by)
    return {"agreement": agree, "same": int(agree["same_direction"].sum()), "panels": len(agree),
            "n_prompts": int(same["prompt_key"].nunique()), "n_words": int(same["word"].nunique()),
            "n_significant": int(results["compute"]["permutation"]["reject"].sum()),
            "unit": results["compute"]["unit"], "implicit": bool(computed["reward_kind"].str.startswith("LM").any())}
