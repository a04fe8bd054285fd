"""Per-cell regressions for the framing and mere-exposure chapters.

One OLS fit per model x prompt cell (statsmodels), e.g. ``reward ~ log_freq + valence`` (mere exposure) or
``reward ~ afinn`` (framing). The chapters then ask how many cells have a positive slope, and compare that share
with a noise baseline from shuffling the predictor, because the cells share the same words and are not independent.
A share's interval is :func:`proportion_ci` (Wilson), which the distributions chapter's tail shares use too.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import patsy
import statsmodels.api as sm
import statsmodels.formula.api as smf
from statsmodels.stats.proportion import proportion_confint

from rmlib.stats.columns import formula_name, require_columns

__all__ = ["cell_slopes", "slope_difference", "proportion_ci", "share_positive", "shuffled_share_baseline",
           "compare_to_baseline"]


def _rhs(df: pd.DataFrame, covariates: Sequence[str]) -> list[str]:
    terms = []
    for c in covariates:
        numeric = pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
        terms.append(formula_name(c) if numeric else f"C({formula_name(c)})")
    return terms


def _check(df, y, x, covariates, groups):
    cols = [y, x, *covariates, *groups]
    require_columns(df, cols)
    nan = [c for c in [y, x, *covariates] if df[c].isna().any()]
    if nan:
        raise ValueError(f"NaN values in columns {nan}; drop or impute those rows first (e.g. words without a frequency)")


def _groupby(df, groups):
    return df.groupby(list(groups), observed=True, sort=True) if groups else [((), df)]


def cell_slopes(df: pd.DataFrame, *, y: str = "reward", x: str = "x", covariates: Sequence[str] = (),
                groups: Sequence[str] = ("model", "prompt"), alpha: float = 0.05, cov_type: str = "HC3",
                min_n: int = 10) -> pd.DataFrame:
    """OLS ``y ~ x + covariates`` in each group; the slope of ``x`` with its CI.

    Categorical covariates are dummy-coded. HC3 (heteroscedasticity-robust) standard errors by default, since score
    spread often differs across the predictor's range. Returns *groups, slope, se, ci_low, ci_high, p, n.

    With numeric covariates only, each cell's design (intercept, x, covariates) is stacked from the columns rather
    than parsed from the formula: the same matrix, so the same fit, and the mere-exposure chapter's 5,430 cells no
    longer spend nine tenths of their time in patsy (#61).
    """
    groups, covariates = list(groups), list(covariates)
    _check(df, y, x, covariates, groups)
    rhs = _rhs(df, covariates)
    formula = " + ".join([f"{formula_name(y)} ~ {formula_name(x)}", *rhs])
    term = formula_name(x)
    numeric = all(not t.startswith("C(") for t in rhs)
    rows = []
    for key, g in _groupby(df, groups):
        key = key if isinstance(key, tuple) else (key,)
        if len(g) < min_n:
            raise ValueError(f"group {dict(zip(groups, key))} has {len(g)} rows (< min_n={min_n})")
        if g[x].nunique() < 2:
            raise ValueError(f"group {dict(zip(groups, key))}: predictor {x!r} is constant")
        if numeric:  # the formula's own design, column for column, without parsing it again for every cell
            columns = [np.ones(len(g)), *(g[c].to_numpy(float) for c in [x, *covariates])]
            design = np.asfortranarray(np.column_stack(columns))  # patsy's layout: BLAS sums in the same order
            res = sm.OLS(g[y].to_numpy(float), design).fit(cov_type=cov_type)
            lo, hi = res.conf_int(alpha)[1]
            slope, se, p = res.params[1], res.bse[1], res.pvalues[1]
        else:  # dummy-coded covariates: patsy codes the levels present in this cell
            res = smf.ols(formula, g).fit(cov_type=cov_type)
            lo, hi = res.conf_int(alpha).loc[term]
            slope, se, p = res.params[term], res.bse[term], res.pvalues[term]
        rows.append({**dict(zip(groups, key)), "slope": slope, "se": se, "ci_low": lo, "ci_high": hi, "p": p,
                     "n": int(res.nobs)})
    return pd.DataFrame(rows)


def slope_difference(df: pd.DataFrame, *, y: str = "reward", x: str = "x", condition: str = "valence",
                     levels: Sequence[str] | None = None, covariates: Sequence[str] = (),
                     groups: Sequence[str] = ("model",), cluster: str | None = None,
                     alpha: float = 0.05) -> pd.DataFrame:
    """Does the slope of x differ between two conditions (e.g. positive vs negative prompts)? Per group.

    Fits ``y ~ x * C(condition) + covariates`` and reports each condition's slope with its CI and the interaction
    (slope_b - slope_a) with CI and p. Pass ``covariates=["prompt"]`` for prompt fixed effects and
    ``cluster="word"`` for standard errors clustered by word (the same word appears under every prompt).
    """
    groups, covariates = list(groups), list(covariates)
    _check(df, y, x, [*covariates, condition], groups)
    if cluster is not None:
        require_columns(df, [cluster])
    levels = list(levels) if levels is not None else sorted(df[condition].unique())
    if len(levels) != 2:
        raise ValueError(f"need exactly two {condition!r} levels, got {levels}; pass levels=(a, b)")
    data = df[df[condition].isin(levels)]
    cond = f'C({formula_name(condition)}, levels={levels!r})'
    # A covariate such as prompt (fixed effects) already absorbs the condition's main effect; keep the design full-rank.
    nested = any(data.groupby(c, observed=True)[condition].nunique().max() == 1 for c in covariates
                 if not pd.api.types.is_numeric_dtype(data[c]))
    main = [] if nested else [cond]
    formula = " + ".join([f"{formula_name(y)} ~ {formula_name(x)}", f"{formula_name(x)}:{cond}", *main, *_rhs(data, covariates)])
    rows = []
    for key, g in _groupby(data, groups):
        key = key if isinstance(key, tuple) else (key,)
        counts = g[condition].value_counts()
        if any(counts.get(lv, 0) < 3 for lv in levels):
            raise ValueError(f"group {dict(zip(groups, key))}: too few rows per condition {counts.to_dict()}")
        kw = {"cov_type": "cluster", "cov_kwds": {"groups": pd.factorize(g[cluster])[0]}} if cluster else \
            {"cov_type": "HC3"}
        res = smf.ols(formula, g).fit(**kw)
        names = list(res.params.index)
        xi = names.index(formula_name(x))
        inter = [n for n in names if n.startswith(f"{formula_name(x)}:")]
        if len(inter) != 1:
            raise RuntimeError(f"unexpected interaction terms {inter}")
        ii = names.index(inter[0])
        row = dict(zip(groups, key), condition_a=levels[0], condition_b=levels[1], n=int(res.nobs))
        for label, vec in (("slope_a", {xi: 1}), ("slope_b", {xi: 1, ii: 1}), ("difference", {ii: 1})):
            c = np.zeros(len(names))
            for i, v in vec.items():
                c[i] = v
            t = res.t_test(c)
            lo, hi = np.asarray(t.conf_int(alpha)).ravel()
            row.update({label: float(np.squeeze(t.effect)), f"{label}_ci_low": lo, f"{label}_ci_high": hi})
            if label == "difference":
                row["p"] = float(np.squeeze(t.pvalue))
        rows.append(row)
    return pd.DataFrame(rows)


def proportion_ci(k: int, n: int, alpha: float = 0.05, method: str = "wilson") -> tuple[float, float]:
    """The 1 − ``alpha`` interval of a share ``k`` of ``n`` (statsmodels ``proportion_confint``; Wilson by default,
    which stays within [0, 1] and holds at small n and near 0 or 1, where the normal interval does not)."""
    lo, hi = proportion_confint(k, n, alpha=alpha, method=method)
    return float(lo), float(hi)


def share_positive(slopes: pd.DataFrame | Sequence[float], *, column: str = "slope", alpha: float = 0.05,
                   method: str = "wilson") -> dict:
    """Share of cells with a positive slope, with a Wilson CI (``statsmodels`` proportion_confint).

    The CI treats cells as independent; compare with :func:`shuffled_share_baseline` for what chance produces when
    cells share words. Also counts cells whose slope is significantly positive/negative (needs a ``p`` column).
    """
    s = slopes[column] if isinstance(slopes, pd.DataFrame) else pd.Series(slopes, dtype=float)
    if s.isna().any():
        raise ValueError("slopes contain NaN")
    if len(s) == 0:
        raise ValueError("no slopes given")
    k, n = int((s > 0).sum()), len(s)
    lo, hi = proportion_ci(k, n, alpha, method)
    out = {"n_cells": n, "n_positive": k, "share": k / n, "ci_low": float(lo), "ci_high": float(hi)}
    if isinstance(slopes, pd.DataFrame) and "p" in slopes:
        sig = slopes["p"] < alpha
        out.update(n_sig_positive=int((sig & (s > 0)).sum()), n_sig_negative=int((sig & (s < 0)).sum()))
    return out


def shuffled_share_baseline(df: pd.DataFrame, *, y: str = "reward", x: str = "x", covariates: Sequence[str] = (),
                            groups: Sequence[str] = ("model", "prompt"), item: str | None = "word",
                            n_shuffles: int = 200, batch: int = 50, seed: int = 0) -> np.ndarray:
    """Null distribution of the share of positive slopes, from shuffling the predictor.

    With ``item`` given (default ``word``), each permutation reassigns x values among *items* once and applies the
    same reassignment in every cell, keeping the dependence between cells that share words (shuffling each cell
    separately would make the null far too narrow). With ``item=None`` x is shuffled within each cell.
    Slopes come from the same regression as :func:`cell_slopes` (partialling out covariates, Frisch-Waugh-Lovell),
    solved for a batch of permutations at once. Returns an array of n_shuffles shares.
    """
    groups, covariates = list(groups), list(covariates)
    _check(df, y, x, covariates, groups)
    if n_shuffles < 1:
        raise ValueError(f"n_shuffles must be >= 1, got {n_shuffles}")
    rng = np.random.default_rng(seed)
    data = df.reset_index(drop=True)
    if item is not None:
        require_columns(data, [item])
        per_item = data.groupby(item)[x].nunique()
        if (per_item > 1).any():
            raise ValueError(f"x must be an item attribute to shuffle by item; {int((per_item > 1).sum())} items "
                             f"have several {x!r} values (pass item=None to shuffle within cells)")
        item_codes, item_values = pd.factorize(data[item])
        item_x = data.groupby(item_codes)[x].first().to_numpy(float)
    rhs = " + ".join(["1", *_rhs(data, covariates)])
    cells = []
    for _, g in _groupby(data, groups):
        z = np.asarray(patsy.dmatrix(rhs, g, return_type="matrix"))
        cells.append((g.index.to_numpy(), z, g[y].to_numpy(float), g[x].to_numpy(float)))
    shares = np.empty(n_shuffles)
    done = 0
    while done < n_shuffles:
        b = min(batch, n_shuffles - done)
        if item is not None:
            perms = np.stack([rng.permutation(item_x) for _ in range(b)], axis=1)  # items x b
        positive = np.zeros(b)
        for rows, z, yy, xx in cells:
            if item is not None:
                xp = perms[item_codes[rows]]
            else:
                xp = np.stack([rng.permutation(xx) for _ in range(b)], axis=1)
            resid = xp - z @ np.linalg.lstsq(z, xp, rcond=None)[0]
            positive += (resid.T @ yy) > 0
        shares[done:done + b] = positive / len(cells)
        done += b
    return shares


def compare_to_baseline(observed_share: float, null_shares) -> dict:
    """Where the observed share sits in the shuffled null: null mean, 95% range, one-sided permutation p (share >)."""
    null = np.asarray(null_shares, float)
    if null.size == 0 or np.isnan(null).any():
        raise ValueError("null_shares must be a non-empty array without NaN")
    return {"observed": float(observed_share), "null_mean": float(null.mean()),
            "null_low": float(np.quantile(null, 0.025)), "null_high": float(np.quantile(null, 0.975)),
            "p_greater": float((1 + (null >= observed_share).sum()) / (1 + null.size))}
