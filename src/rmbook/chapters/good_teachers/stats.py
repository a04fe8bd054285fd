"""Does accuracy or variance predict teaching speed? Rank correlations across RMs, and the pairs that defy accuracy.

Works on the table :func:`rmbook.chapters.good_teachers.analysis.teaching_table` returns: one row per (π_0, RM). The
claim is about reward
models, so the unit of every interval is the RM: the bootstrap resamples RMs, each with all its π_0 rows.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

__all__ = ["VARIANCE_RTOL", "ACCURACY_MARGIN", "clearly_lower", "rank_correlations", "slower_but_more_accurate",
           "slower_counts", "variance_explains", "gain_verdicts", "replication"]

#: Two variances under π_0 within this *relative* tolerance count as equal. Under a uniform π_0 every standardised
#: reward has variance exactly 1, and what a float comparison then sees is rounding (1 ± 1e-16); a tolerance far
#: above double precision (2e-16) and far below any real difference between RMs (the published ones differ by 1e-2
#: and more under a concentrated π_0) separates the two.
VARIANCE_RTOL = 1e-9

#: The smallest accuracy gap (over uniform pairs) for a "more accurate yet slower" pair to count as evidence that
#: accuracy does not decide teaching speed. The accuracies here are exact over every item pair, but the claim is
#: about accuracy as a benchmark measures it, and a benchmark samples pairs: 0.01 is one percentage point, the
#: resolution RM leaderboards report, and two standard errors of the difference of two accuracies measured on 20,000
#: sampled pairs each (2 · √2 · 0.5/√20000 = 0.010). A gap of 0.002 is within that noise: such an RM is not "more
#: accurate" in any sense a benchmark could show.
ACCURACY_MARGIN = 0.01


def clearly_lower(a, b, rtol: float = VARIANCE_RTOL):
    """``a < b`` beyond a relative tolerance (:data:`VARIANCE_RTOL`): equal variances (all 1 under a uniform π_0,
    up to rounding) are never 'lower'. Works elementwise on arrays."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return (a < b) & ~np.isclose(a, b, rtol=rtol, atol=0.0)


def _row_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's ρ of each row pair (average ranks for ties); NaN where a row is constant."""
    rx, ry = sps.rankdata(x, axis=-1), sps.rankdata(y, axis=-1)
    rx = rx - rx.mean(axis=-1, keepdims=True)
    ry = ry - ry.mean(axis=-1, keepdims=True)
    den = np.sqrt(np.sum(rx ** 2, axis=-1) * np.sum(ry ** 2, axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 1e-12, np.sum(rx * ry, axis=-1) / den, np.nan)


def _constant(x: np.ndarray) -> bool:
    return bool(np.ptp(x) <= 1e-9 * max(1.0, float(np.abs(x).max())))


def rank_correlations(table: pd.DataFrame, predictors, outcomes, *, by: str = "pi0", unit: str = "model",
                      n_resamples: int = 1999, confidence: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Spearman's ρ between each predictor and outcome across units (RMs), within each stratum (π_0) and pooled.

    The claim is about reward models, so the bootstrap resamples RMs (with all their π_0 rows) and the pooled
    value is the mean of the within-π_0 correlations: pooling raw rows would mix the π_0's different time scales
    into the correlation. A predictor that is constant within a stratum (Var under a uniform π_0 is 1 for every
    standardised RM) has no correlation there: its row is NaN with ``defined`` False. Percentile intervals;
    ``verdict`` says "predicts" only when the whole interval is above 0 ("predicts the opposite": below 0).
    """
    need = {by, unit, *predictors, *outcomes}
    if missing := need - set(table.columns):
        raise ValueError(f"table lacks columns {sorted(missing)}")
    if table.duplicated([by, unit]).any():
        raise ValueError(f"table has repeated ({by}, {unit}) rows; each {unit} needs one row per {by}")
    wide = table.pivot(index=unit, columns=by)
    units, strata = list(wide.index), list(dict.fromkeys(table[by]))
    if len(units) < 3:
        raise ValueError(f"need at least 3 {unit}s for a rank correlation, got {len(units)}")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(units), size=(int(n_resamples), len(units)))
    alpha = (1 - confidence) / 2
    rows = []
    for pred in predictors:
        for out in outcomes:
            est, boot, defined = [], [], []
            for st in strata:
                x, y = wide[(pred, st)].to_numpy(float), wide[(out, st)].to_numpy(float)
                ok = not (_constant(x) or _constant(y) or np.isnan(x).any() or np.isnan(y).any())
                e = float(_row_spearman(x, y)) if ok else np.nan
                b = _row_spearman(x[idx], y[idx]) if ok else np.full(len(idx), np.nan)
                est.append(e), boot.append(b), defined.append(ok)
                rows.append(_ci_row(st, pred, out, e, b, alpha, len(units), ok))
            use = [i for i, ok in enumerate(defined) if ok]
            if use:
                pooled_boot = np.nanmean(np.stack([boot[i] for i in use]), axis=0) if len(use) > 1 else boot[use[0]]
                rows.append(_ci_row("pooled", pred, out, float(np.mean([est[i] for i in use])), pooled_boot,
                                    alpha, len(units), True, n_strata=len(use)))
    return pd.DataFrame(rows)


def _ci_row(stratum, pred, out, est, boot, alpha, n, defined, n_strata=1) -> dict:
    b = boot[np.isfinite(boot)]
    lo, hi = (np.quantile(b, [alpha, 1 - alpha]) if b.size else (np.nan, np.nan))
    verdict = ("undefined" if not defined else "predicts" if lo > 0 else
               "predicts the opposite" if hi < 0 else "does not predict")
    return {"stratum": stratum, "predictor": pred, "outcome": out, "rho": est, "ci_low": float(lo),
            "ci_high": float(hi), "verdict": verdict, "n_units": n, "n_strata": n_strata, "defined": defined,
            "n_resamples_defined": int(b.size)}


def slower_but_more_accurate(table: pd.DataFrame, *, accuracy: str = "accuracy_uniform", speed: str = "gain_T",
                             by: str = "pi0", unit: str = "model") -> pd.DataFrame:
    """Every pair of RMs under one π_0 where the more accurate one teaches more slowly (strictly, both ways).

    ``lower_variance`` says whether the slower one also has the lower Var_π0[r] (beyond :data:`VARIANCE_RTOL`: under
    a uniform π_0 no variance is lower than another), the explanation Razin et al. give, and ``higher_variance``
    whether it clearly has the higher one, the case against it (neither: the variances are equal within the
    tolerance, which explains nothing either way); ``accuracy_gap`` is the
    more accurate RM's lead, to be judged against :data:`ACCURACY_MARGIN`.
    """
    rows = []
    for st, g in table.groupby(by, sort=False):
        recs = g.to_dict("records")
        for a in recs:
            for b in recs:
                if a[accuracy] > b[accuracy] and a[speed] < b[speed]:
                    rows.append({by: st, "more_accurate": a[unit], "less_accurate": b[unit],
                                 "accuracy_more": a[accuracy], "accuracy_less": b[accuracy],
                                 "speed_more_accurate": a[speed], "speed_less_accurate": b[speed],
                                 "variance_more_accurate": a["variance_pi0"],
                                 "variance_less_accurate": b["variance_pi0"],
                                 "lower_variance": bool(clearly_lower(a["variance_pi0"], b["variance_pi0"])),
                                 "higher_variance": bool(clearly_lower(b["variance_pi0"], a["variance_pi0"]))})
    cols = [by, "more_accurate", "less_accurate", "accuracy_more", "accuracy_less", "speed_more_accurate",
            "speed_less_accurate", "variance_more_accurate", "variance_less_accurate", "lower_variance",
            "higher_variance"]
    out = pd.DataFrame(rows, columns=cols)
    out[["lower_variance", "higher_variance"]] = out[["lower_variance", "higher_variance"]].astype(bool)
    return out.assign(accuracy_gap=out["accuracy_more"] - out["accuracy_less"]).sort_values(
        [by, "accuracy_gap"], ascending=[True, False], kind="stable").reset_index(drop=True)


def slower_counts(table: pd.DataFrame, pairs: pd.DataFrame, *, by: str = "pi0", unit: str = "model",
                  margin: float = ACCURACY_MARGIN) -> pd.DataFrame:
    """Per π_0: how many RM pairs there are, in how many the more accurate RM teaches more slowly
    (:func:`slower_but_more_accurate`), in how many of those it also has the lower variance, and in how many its
    accuracy lead exceeds ``margin``."""
    k = table.groupby(by, sort=False)[unit].nunique()
    counts = pd.DataFrame({"RM pairs": k * (k - 1) // 2, "more accurate, slower": pairs.groupby(by).size(),
                           "... with lower variance": pairs.groupby(by)["lower_variance"].sum(),
                           f"... accuracy gap > {margin:g}": (pairs["accuracy_gap"] > margin).groupby(pairs[by]).sum()})
    return counts.reindex(k.index).fillna(0).astype(int)


def variance_explains(pairs: pd.DataFrame, strata, *, by: str = "pi0", margin: float = ACCURACY_MARGIN) -> list[dict]:
    """Per π_0 (every one of ``strata``, in order, also those without an inversion): of the more-accurate-yet-slower
    pairs (:func:`slower_but_more_accurate`), how many the variance mechanism explains (the slower RM has the lower
    variance under π_0). The share, not just the count, is what says whether variance accounts for the inversions:
    19 of 54 is 0 of 18 under a uniform π_0, where the mechanism cannot act at all. ``share`` is None without
    inversions. ``n_inversions_margin``: the inversions whose accuracy lead exceeds ``margin``; ``n_higher_variance``:
    those where the slower RM clearly has the higher variance (against the mechanism)."""
    out = []
    for st in strata:
        g = pairs[pairs[by] == st]
        k = int(g["lower_variance"].sum())
        out.append({by: st, "n_inversions": int(len(g)), "n_inversions_margin": int((g["accuracy_gap"] > margin).sum()),
                    "n_lower_variance": k, "n_higher_variance": int(g["higher_variance"].sum()),
                    "share": k / len(g) if len(g) else None})
    return out


def gain_verdicts(correlations: pd.DataFrame, outcome: str = "gain_T") -> pd.DataFrame:
    """The defined correlations with ``outcome`` (:func:`rank_correlations`): predictor, stratum, ρ, CI, verdict."""
    main = correlations[(correlations["outcome"] == outcome) & correlations["defined"]]
    return main[["predictor", "stratum", "rho", "ci_low", "ci_high", "verdict"]]


def replication(correlations: pd.DataFrame, pairs: pd.DataFrame, outcome: str = "gain_T",
                margin: float = ACCURACY_MARGIN, by: str = "pi0") -> dict:
    """Razin et al.'s two-part claim judged on one setting, per π_0 (pooled rows left out).

    (1) accuracy does not decide teaching speed: ``n_slower_more_accurate`` pairs (``pairs``:
    :func:`slower_but_more_accurate`) where the more accurate RM teaches more slowly, of which
    ``n_slower_more_accurate_margin`` have an accuracy lead above ``accuracy_margin`` (:data:`ACCURACY_MARGIN`; the
    existence of such a pair is the evidence, a lead of 0.002 is not), and the π_0 under which accuracy over uniform
    pairs nevertheless predicts the speed; how many inversions the variance explains (``n_slower_lower_variance``
    and per π_0, :func:`variance_explains`; ``n_slower_higher_variance``: how many go against it). (2) variance under
    π_0 predicts it: the π_0 where its whole bootstrap interval is above 0 (``variance_predicts_under``), those where it
    is not (``variance_does_not_predict_under``, which splits into ``variance_reversed_under``, the whole interval below
    0, the opposite of the claim, and ``variance_not_established_under``, an interval spanning 0). The exploratory
    ``reward_max`` is listed the same way. The claims page reads this block (:mod:`rmbook.chapters.claims.analysis`).
    """
    per = correlations[(correlations["outcome"] == outcome) & correlations["defined"]
                       & (correlations["stratum"] != "pooled")]

    def under(predictor: str, verdicts: set[str], keep: bool = True) -> list[str]:
        rows = per[per["predictor"] == predictor]
        return rows.loc[rows["verdict"].isin(verdicts) == keep, "stratum"].tolist()

    strata = list(dict.fromkeys(correlations.loc[correlations["stratum"] != "pooled", "stratum"]))
    return {"n_slower_more_accurate": int(len(pairs)),
            "n_slower_more_accurate_margin": int((pairs["accuracy_gap"] > margin).sum()),
            "accuracy_margin": float(margin),
            "n_slower_lower_variance": int(pairs["lower_variance"].sum()),
            "n_slower_higher_variance": int(pairs["higher_variance"].sum()),
            "variance_explains": variance_explains(pairs, strata, by=by, margin=margin),
            "variance_predicts_under": under("variance_pi0", {"predicts"}),
            "variance_does_not_predict_under": under("variance_pi0", {"predicts"}, keep=False),
            "variance_reversed_under": under("variance_pi0", {"predicts the opposite"}),
            "variance_not_established_under": under("variance_pi0", {"does not predict"}),
            "accuracy_predicts_under": under("accuracy_uniform", {"predicts"}),
            "reward_max_predicts_under": under("reward_max", {"predicts"})}
