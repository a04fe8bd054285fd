"""Do Gemma-based and Llama-based RMs rank value words differently? (Big Two and MFD2 chapters.)

Input is a *long* score table, one row per model x prompt x word, with word-level columns (category such as
agency/communion, or foundation and virtue/vice) and prompt-level columns (valence: positive/negative prompt).
Column names are keyword arguments with the defaults model, prompt, word, reward.

Pipeline: :func:`within_prompt_ranks` -> :func:`median_ranks` -> tests (:func:`permutation_tests`,
:func:`anova_type2`, :func:`posthoc_welch`) and, on word-level ranks, :func:`mixed_model`.
"""
from __future__ import annotations

import math

import re
import warnings
from itertools import combinations
from typing import Sequence

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from scipy import stats
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.multitest import multipletests

from rmlib.stats.columns import formula_name, require_columns
from rmlib.stats.effects import hedges_g

__all__ = ["within_prompt_ranks", "median_ranks", "exact_two_group_floor", "permutation_tests", "mixed_model", "anova_type2", "one_way_by", "posthoc_welch"]


def _check_values(df, cols, value):
    require_columns(df, cols)
    if df[value].isna().any():
        raise ValueError(f"column {value!r} has {int(df[value].isna().sum())} NaN values; drop those rows first")


def within_prompt_ranks(df: pd.DataFrame, *, model: str = "model", prompt: str = "prompt", item: str = "word",
                        reward: str = "reward") -> pd.DataFrame:
    """Add column ``rank``: 1 = highest reward within its model x prompt (ties get the average rank).

    Ranking within each prompt removes each model's and prompt's score scale. Under a negative prompt ("worst thing")
    rank 1 is the word the RM finds the best answer, i.e. the *worst* word; read ranks together with valence.
    """
    _check_values(df, [model, prompt, item, reward], reward)
    dup = df.duplicated([model, prompt, item])
    if dup.any():
        raise ValueError(f"{int(dup.sum())} duplicate (model, prompt, {item}) rows; each word once per model x prompt")
    return df.assign(rank=df.groupby([model, prompt])[reward].rank(ascending=False, method="average"))


def median_ranks(df: pd.DataFrame, *, model: str = "model", prompt: str = "prompt", item: str = "word",
                 reward: str = "reward", by: Sequence[str] = ("category", "valence"),
                 per_prompt: bool = True) -> pd.DataFrame:
    """Median within-prompt rank per model x (prompt) x category x valence.

    ``by`` names the word-level and prompt-level grouping columns (Big Two: category, valence; MFD2: foundation,
    virtue, valence). With ``per_prompt=True`` (default) each prompt stays a separate row, which the ANOVA uses as
    replicates; otherwise words and prompts are pooled. Returns model, [prompt], *by, median_rank, n_words.
    """
    by = list(by)
    require_columns(df, by)
    ranked = within_prompt_ranks(df, model=model, prompt=prompt, item=item, reward=reward)
    keys = [model, prompt, *by] if per_prompt else [model, *by]
    out = (ranked.groupby(keys, observed=True, sort=True)["rank"].agg(median_rank="median", n_words="size")
           .reset_index())
    return out


def _unit_means(df, value, group, panels, unit):
    if unit is None:
        return df
    require_columns(df, [unit])
    per_unit = df.groupby(unit)[group].nunique()
    if (per_unit > 1).any():
        raise ValueError(f"units {per_unit.index[per_unit > 1].tolist()} belong to several {group!r} levels")
    return df.groupby([*panels, group, unit], observed=True, as_index=False)[value].mean()


def _welch_t(x, y, axis=-1):
    return stats.ttest_ind(x, y, axis=axis, equal_var=False).statistic


def exact_two_group_floor(n_a: int, n_b: int) -> float:
    """The smallest p an exact two-sided permutation test of two groups of ``n_a`` and ``n_b`` units can give: the
    observed labelling and its mirror image are the two most extreme of C(n_a + n_b, n_a). With 4 vs 6 models this
    is 2/210 = 0.0095, whatever the effect."""
    if n_a < 1 or n_b < 1:
        raise ValueError(f"need at least one unit per group, got {n_a} and {n_b}")
    return min(1.0, 2 / math.comb(n_a + n_b, n_a))


def permutation_tests(df: pd.DataFrame, *, value: str = "median_rank", group: str = "family",
                      panels: Sequence[str] = ("category", "valence"), unit: str | None = "model",
                      levels: Sequence[str] | None = None, n_resamples: int = 9999, alpha: float = 0.05,
                      seed: int | None = 0) -> pd.DataFrame:
    """Two-group permutation t-test in each panel, FDR-corrected (Benjamini-Hochberg) across panels.

    ``unit`` (default model) is the unit of replication: values are first averaged per unit x panel, so a family
    with five models has n = 5 however many prompts and words there are. With few models the test is exact
    (all relabellings are enumerated when n_resamples exceeds their number). Returns per panel: group_a, group_b,
    n_a, n_b, mean_a, mean_b, difference (a - b), t (Welch), p, p_fdr, reject, hedges_g.
    """
    panels = list(panels)
    require_columns(df, [value, group, *panels])
    if df[value].isna().any():
        raise ValueError(f"column {value!r} has NaN values; drop them first")
    data = _unit_means(df, value, group, panels, unit)
    levels = list(levels) if levels is not None else sorted(data[group].dropna().unique())
    if len(levels) != 2:
        raise ValueError(f"need exactly two {group!r} levels to compare, got {levels}; pass levels=(a, b)")
    rows = []
    rng = np.random.default_rng(seed)
    for key, g in data.groupby(panels, observed=True, sort=True) if panels else [((), data)]:
        key = key if isinstance(key, tuple) else (key,)
        a = g.loc[g[group] == levels[0], value].to_numpy(float)
        b = g.loc[g[group] == levels[1], value].to_numpy(float)
        if min(a.size, b.size) < 2:
            raise ValueError(f"panel {dict(zip(panels, key))}: {a.size} {levels[0]!r} and {b.size} {levels[1]!r} "
                             f"{unit or 'rows'}; need at least 2 per group")
        res = stats.permutation_test((a, b), _welch_t, permutation_type="independent", n_resamples=n_resamples,
                                     alternative="two-sided", vectorized=True, rng=rng)
        # Both groups flat and equal: t is 0/0, and scipy would report p = 0; there is no evidence of a difference.
        p = 1.0 if np.isnan(res.statistic) else float(res.pvalue)
        rows.append({**dict(zip(panels, key)), "group_a": levels[0], "group_b": levels[1], "n_a": a.size,
                     "n_b": b.size, "mean_a": a.mean(), "mean_b": b.mean(), "difference": a.mean() - b.mean(),
                     "t": float(res.statistic), "p": p, "hedges_g": float(hedges_g(a, b))})
    out = pd.DataFrame(rows)
    out["reject"], out["p_fdr"] = multipletests(out["p"], alpha=alpha, method="fdr_bh")[:2]
    return out


def _tidy_term(term: str) -> str:
    term = re.sub(r'C\(Q\("([^"]+)"\)\)', r"\1", term)
    return re.sub(r'Q\("([^"]+)"\)', r"\1", term)


def mixed_model(df: pd.DataFrame, *, value: str = "rank", fixed: Sequence[str] = ("family", "category", "valence"),
                groups: str = "model", reml: bool = True, alpha: float = 0.05) -> pd.DataFrame:
    """Linear mixed model ``value ~ f1 * f2 * f3`` (categorical, full interaction) with a random intercept per group.

    Typically on word-level within-prompt ranks: ``rank ~ family * category * valence + (1 | model)``. Returns a tidy
    table: term, estimate, se, z, p, ci_low, ci_high; ``.attrs`` holds converged, n_obs, n_groups, group_var.
    Treatment coding: the intercept is the first level of each factor (sorted), other terms are differences from it.
    """
    fixed = list(fixed)
    _check_values(df, [value, groups, *fixed], value)
    if df[fixed].isna().any().any():
        raise ValueError(f"missing values in factor columns {fixed}")
    n_groups = df[groups].nunique()
    if n_groups < 3:
        raise ValueError(f"a random intercept per {groups!r} needs at least 3 groups, got {n_groups}")
    for f in fixed:
        per_level = df.groupby(f, observed=True)[groups].nunique()
        if len(per_level) < 2:
            raise ValueError(f"factor {f!r} has a single level {per_level.index.tolist()}; drop it from fixed")
        if (per_level < 2).any() and (df.groupby(groups)[f].nunique() == 1).all():
            raise ValueError(f"factor {f!r} varies between {groups}s only and level(s) "
                             f"{per_level.index[per_level < 2].tolist()} have a single {groups}; need >= 2 each")
    formula = f"{formula_name(value)} ~ " + " * ".join(f"C({formula_name(f)})" for f in fixed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = smf.mixedlm(formula, df, groups=df[groups]).fit(reml=reml)
    ci = res.conf_int(alpha=alpha)
    names = [n for n in res.fe_params.index]
    out = pd.DataFrame({"term": [_tidy_term(n) for n in names], "estimate": res.fe_params.to_numpy(),
                        "se": res.bse_fe.to_numpy(), "z": res.tvalues[names].to_numpy(),
                        "p": res.pvalues[names].to_numpy(), "ci_low": ci.loc[names, 0].to_numpy(),
                        "ci_high": ci.loc[names, 1].to_numpy()})
    out.attrs.update(converged=bool(res.converged), n_obs=int(res.nobs), n_groups=int(n_groups),
                     group_var=float(res.cov_re.iloc[0, 0]),
                     warnings=[str(w.message) for w in caught if issubclass(w.category, Warning)])
    return out


def anova_type2(df: pd.DataFrame, *, value: str = "median_rank",
                factors: Sequence[str] = ("category", "valence", "model")) -> pd.DataFrame:
    """Type-II factorial ANOVA ``value ~ f1 * f2 * f3`` (OLS + ``anova_lm(typ=2)``).

    Returns term, sum_sq, df, F, p, partial_eta_sq, with a final ``Residual`` row; report F(df, df_resid).
    Needs replicates per cell (e.g. prompts as rows from ``median_ranks(per_prompt=True)``).
    """
    factors = list(factors)
    _check_values(df, [value, *factors], value)
    for f in factors:
        if df[f].nunique() < 2:
            raise ValueError(f"factor {f!r} has fewer than 2 levels; drop it from factors")
    cells = df.groupby(factors, observed=True).size()
    n_params = int(np.prod([df[f].nunique() for f in factors]))
    if len(df) <= n_params:
        raise ValueError(f"{len(df)} rows cannot fit {n_params} cell means with residual df > 0; "
                         "use per_prompt=True in median_ranks to keep prompts as replicates")
    if len(cells) < n_params:
        raise ValueError(f"only {len(cells)} of {n_params} factor cells are observed; the design must be complete")
    formula = f"{formula_name(value)} ~ " + " * ".join(f"C({formula_name(f)})" for f in factors)
    table = anova_lm(smf.ols(formula, df).fit(), typ=2)
    ss_res = table.loc["Residual", "sum_sq"]
    out = table.rename(columns={"PR(>F)": "p"}).reset_index(names="term")
    out["term"] = out["term"].map(_tidy_term)
    out["partial_eta_sq"] = np.where(out["term"] == "Residual", np.nan, out["sum_sq"] / (out["sum_sq"] + ss_res))
    return out[["term", "sum_sq", "df", "F", "p", "partial_eta_sq"]]


def one_way_by(df: pd.DataFrame, *, value: str, factor: str, by: str) -> pd.DataFrame:
    """One-way ANOVA of ``value`` on ``factor`` within each level of ``by`` (e.g. per prompt), via
    :func:`anova_type2`: by, factor, F, df ("k, n"), p, eta_sq (partial). A level is skipped when the factor has one
    level there or a level has a single replicate, since no within-level variance exists then."""
    rows = []
    for label, g in df.groupby(by):
        if g[factor].nunique() < 2 or g.groupby(factor).size().min() < 2:
            continue
        t = anova_type2(g, value=value, factors=[factor]).set_index("term")
        rows.append({by: label, "factor": factor, "F": t.loc[factor, "F"],
                     "df": f"{int(t.loc[factor, 'df'])}, {int(t.loc['Residual', 'df'])}", "p": t.loc[factor, "p"],
                     "eta_sq": t.loc[factor, "partial_eta_sq"]})
    return pd.DataFrame(rows)


def posthoc_welch(df: pd.DataFrame, *, value: str = "median_rank", between: str = "family",
                  panels: Sequence[str] = ("category", "valence"), unit: str | None = "model",
                  alpha: float = 0.05, correction: str = "fdr_bh") -> pd.DataFrame:
    """Welch t-tests between every pair of ``between`` levels within each panel, corrected across all of them.

    Returns per panel and pair: level_a, level_b, n_a, n_b, mean_a, mean_b, difference, ci_low, ci_high (Welch CI of
    the difference), t, df, p, p_adj, reject, hedges_g.
    """
    panels = list(panels)
    require_columns(df, [value, between, *panels])
    if df[value].isna().any():
        raise ValueError(f"column {value!r} has NaN values; drop them first")
    data = _unit_means(df, value, between, panels, unit)
    rows = []
    for key, g in data.groupby(panels, observed=True, sort=True) if panels else [((), data)]:
        key = key if isinstance(key, tuple) else (key,)
        for la, lb in combinations(sorted(g[between].unique()), 2):
            a = g.loc[g[between] == la, value].to_numpy(float)
            b = g.loc[g[between] == lb, value].to_numpy(float)
            if min(a.size, b.size) < 2:
                raise ValueError(f"panel {dict(zip(panels, key))}: need >= 2 {unit or 'rows'} per level, got "
                                 f"{la!r}: {a.size}, {lb!r}: {b.size}")
            res = stats.ttest_ind(a, b, equal_var=False)
            ci = res.confidence_interval(1 - alpha)
            rows.append({**dict(zip(panels, key)), "level_a": la, "level_b": lb, "n_a": a.size, "n_b": b.size,
                         "mean_a": a.mean(), "mean_b": b.mean(), "difference": a.mean() - b.mean(),
                         "ci_low": ci.low, "ci_high": ci.high, "t": res.statistic, "df": res.df, "p": res.pvalue,
                         "hedges_g": float(hedges_g(a, b))})
    if not rows:
        raise ValueError(f"no pair of {between!r} levels to compare")
    out = pd.DataFrame(rows)
    out["reject"], out["p_adj"] = multipletests(out["p"], alpha=alpha, method=correction)[:2]
    return out
