"""Effect sizes, distribution shape and human-vs-model misalignment, each with a confidence interval.

With ~10^5 tokens every p-value is ~0, so the chapters report sizes with bootstrap CIs (``scipy.stats.bootstrap``)
instead. Group tests live in :mod:`rmlib.group_tests`, per-cell regressions in :mod:`rmlib.regression`.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import special, stats

__all__ = [
    "require_columns",
    "finite_array",
    "cohen_d",
    "hedges_g",
    "rank_biserial",
    "effect_size",
    "moments",
    "tail_asymmetry",
    "top_bottom",
    "tail_comparison",
    "spearman_ci",
    "misalignment",
    "most_misaligned",
    "misalignment_by",
    "consensus_misalignment",
    "top_overlap",
    "extremes_side_by_side",
    "top_overlap_by",
]


# --- input checks (shared by the statistics modules) ----------------------------------------------------------------

def require_columns(df: pd.DataFrame, columns: Iterable[str], what: str = "df") -> None:
    """Raise a ValueError naming the missing columns, the ones present, and the argument to fix."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} lacks columns {missing} (has {list(df.columns)}); "
                         "rename them or pass the column names as keyword arguments")


def finite_array(x, name: str = "x", min_n: int = 2) -> np.ndarray:
    """1-D float array with no NaN/inf and at least ``min_n`` values, or a clear error."""
    arr = np.asarray(x, dtype=float).ravel()
    if np.isnan(arr).any() or np.isinf(arr).any():
        raise ValueError(f"{name} contains NaN or inf ({int((~np.isfinite(arr)).sum())} values); drop them first")
    if arr.size < min_n:
        raise ValueError(f"{name} needs at least {min_n} values, got {arr.size}")
    return arr


def _auto_method(n: int) -> str:
    # BCa's jackknife costs O(n^2); beyond a few thousand values the percentile interval is close and affordable.
    return "BCa" if n <= 2000 else "percentile"


# --- effect sizes ---------------------------------------------------------------------------------------------------

def cohen_d(x, y, axis: int = -1) -> np.ndarray:
    """Standardised mean difference (x - y) / pooled SD (ddof=1). Vectorised along ``axis`` for the bootstrap."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    nx, ny = x.shape[axis], y.shape[axis]
    pooled = ((nx - 1) * x.var(axis=axis, ddof=1) + (ny - 1) * y.var(axis=axis, ddof=1)) / (nx + ny - 2)
    return (x.mean(axis=axis) - y.mean(axis=axis)) / np.sqrt(pooled)


def hedges_g(x, y, axis: int = -1) -> np.ndarray:
    """Cohen's d times the exact small-sample correction J(df) = Gamma(df/2) / (sqrt(df/2) Gamma((df-1)/2))."""
    df = np.asarray(x).shape[axis] + np.asarray(y).shape[axis] - 2
    j = np.exp(special.gammaln(df / 2) - special.gammaln((df - 1) / 2)) / np.sqrt(df / 2)
    return j * cohen_d(x, y, axis=axis)


def rank_biserial(x, y, axis: int = -1) -> np.ndarray:
    """2 U / (n_x n_y) - 1 from the Mann-Whitney U of x: +1 when every x exceeds every y, 0 at stochastic equality."""
    nx, ny = np.asarray(x).shape[axis], np.asarray(y).shape[axis]
    u = stats.mannwhitneyu(x, y, axis=axis, alternative="two-sided").statistic
    return 2 * u / (nx * ny) - 1


_EFFECTS = {"cohen_d": cohen_d, "hedges_g": hedges_g, "rank_biserial": rank_biserial,
            "mean_difference": lambda x, y, axis=-1: np.mean(x, axis=axis) - np.mean(y, axis=axis)}


def effect_size(x, y, kind: str = "hedges_g", *, confidence: float = 0.95, n_resamples: int = 2000,
                method: str | None = None, seed: int | None = 0) -> dict:
    """An effect size of x vs y with a bootstrap CI (x and y resampled independently).

    kind: ``hedges_g``, ``cohen_d``, ``rank_biserial`` or ``mean_difference``. Returns
    {kind, estimate, ci_low, ci_high, n_x, n_y}.
    """
    if kind not in _EFFECTS:
        raise ValueError(f"kind must be one of {sorted(_EFFECTS)}, got {kind!r}")
    x, y = finite_array(x, "x", 2), finite_array(y, "y", 2)
    fn = _EFFECTS[kind]
    est = float(fn(x, y))
    method = method or _auto_method(min(x.size, y.size))
    if np.ptp(np.r_[x, y]) == 0:
        lo = hi = est
    else:
        res = stats.bootstrap((x, y), fn, n_resamples=n_resamples, confidence_level=confidence, method=method,
                              vectorized=True, batch=200, rng=np.random.default_rng(seed))
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return {"kind": kind, "estimate": est, "ci_low": lo, "ci_high": hi, "n_x": x.size, "n_y": y.size}


# --- distribution shape ---------------------------------------------------------------------------------------------

_MOMENTS = {
    "mean": lambda a, axis=-1: np.mean(a, axis=axis),
    "variance": lambda a, axis=-1: np.var(a, axis=axis, ddof=1),
    "skewness": lambda a, axis=-1: stats.skew(a, axis=axis, bias=False),
    "kurtosis": lambda a, axis=-1: stats.kurtosis(a, axis=axis, bias=False),  # excess kurtosis: 0 for a normal
}


def moments(x, *, confidence: float = 0.95, n_resamples: int = 999, method: str | None = None,
            seed: int | None = 0) -> pd.DataFrame:
    """Mean, variance, skewness and excess kurtosis (bias-corrected) with bootstrap CIs.

    Returns columns moment, estimate, ci_low, ci_high, n. Skewness < 0 means a long low (pessimal) tail.
    """
    a = finite_array(x, "x", 4)
    method = method or _auto_method(a.size)
    batch = max(1, int(2e7 // a.size))  # bound memory at ~160 MB per batch
    rows = []
    for name, fn in _MOMENTS.items():
        est = float(fn(a))
        res = stats.bootstrap((a,), fn, n_resamples=n_resamples, confidence_level=confidence, method=method,
                              vectorized=True, batch=batch, rng=np.random.default_rng(seed))
        rows.append({"moment": name, "estimate": est, "ci_low": float(res.confidence_interval.low),
                     "ci_high": float(res.confidence_interval.high), "n": a.size})
    return pd.DataFrame(rows)


def tail_asymmetry(x, q: float = 0.01, *, confidence: float = 0.95, n_resamples: int = 999,
                   seed: int | None = 0) -> dict:
    """(Q(1-q) - median) / (median - Q(q)): > 1 when the top tail reaches further from the median than the bottom.

    A quantile-based companion to skewness that is not dominated by a handful of extreme tokens.
    """
    if not 0 < q < 0.5:
        raise ValueError(f"q must be in (0, 0.5), got {q}")
    a = finite_array(x, "x", 10)

    def ratio(v, axis=-1):
        lo, med, hi = np.quantile(v, [q, 0.5, 1 - q], axis=axis)
        return (hi - med) / (med - lo)

    est = float(ratio(a))
    res = stats.bootstrap((a,), ratio, n_resamples=n_resamples, confidence_level=confidence, method="percentile",
                          vectorized=True, batch=max(1, int(2e7 // a.size)), rng=np.random.default_rng(seed))
    return {"q": q, "estimate": est, "ci_low": float(res.confidence_interval.low),
            "ci_high": float(res.confidence_interval.high), "n": a.size}


def top_bottom(df: pd.DataFrame, score: str = "score", k: int = 20, by: Sequence[str] = ()) -> pd.DataFrame:
    """The k highest- and k lowest-scoring rows (per group in ``by``), with columns ``tail`` and ``tail_rank``.

    tail_rank 1 is the single best row in the top tail and the single worst in the bottom tail.
    """
    require_columns(df, [score, *by])
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if df[score].isna().any():
        raise ValueError(f"column {score!r} has NaN scores; drop them first")
    groups = df.groupby(list(by), sort=False) if by else [(None, df)]
    parts = []
    for _, g in groups:
        if len(g) < 2 * k:
            raise ValueError(f"a group has {len(g)} rows, fewer than 2k = {2 * k}; lower k")
        top = g.nlargest(k, score).assign(tail="top", tail_rank=np.arange(1, k + 1))
        bottom = g.nsmallest(k, score).assign(tail="bottom", tail_rank=np.arange(1, k + 1))
        parts += [top, bottom]
    return pd.concat(parts)


def tail_comparison(df: pd.DataFrame, features: Sequence[str], score: str = "score", k: int = 100, *,
                    n_resamples: int = 2000, seed: int | None = 0) -> pd.DataFrame:
    """How do the top-k and bottom-k rows differ on each numeric or boolean feature (length, frequency, is_word...)?

    Returns per feature: top_mean, bottom_mean (a share for booleans), difference with a bootstrap CI, and the
    rank-biserial correlation (top vs bottom).
    """
    require_columns(df, [score, *features])
    tails = top_bottom(df, score, k)
    rows = []
    for f in features:
        if not (pd.api.types.is_numeric_dtype(df[f]) or pd.api.types.is_bool_dtype(df[f])):
            raise ValueError(f"feature {f!r} must be numeric or boolean; one-hot encode categories first")
        top = tails.loc[tails["tail"] == "top", f].astype(float).dropna()
        bot = tails.loc[tails["tail"] == "bottom", f].astype(float).dropna()
        diff = effect_size(top, bot, "mean_difference", n_resamples=n_resamples, method="percentile", seed=seed)
        rows.append({"feature": f, "k": k, "top_mean": top.mean(), "bottom_mean": bot.mean(),
                     "difference": diff["estimate"], "ci_low": diff["ci_low"], "ci_high": diff["ci_high"],
                     "rank_biserial": float(rank_biserial(top, bot))})
    return pd.DataFrame(rows)


# --- rank correlation -------------------------------------------------------------------------------------------------

def spearman_ci(x, y, *, confidence: float = 0.95) -> dict:
    """Spearman's rho with the Bonett-Wright (2000) confidence interval.

    Fisher's z interval, var(atanh r) = 1/(n - 3), is derived for Pearson's r of bivariate normal data; for
    Spearman's rho it is too narrow, the more so the larger rho. Bonett & Wright (2000, Psychometrika 65:23-28)
    use var(atanh rho_s) = (1 + rho_s^2 / 2) / (n - 3), which keeps close to nominal coverage for n >= 10.
    Returns {rho, ci_low, ci_high, p (scipy's test of rho = 0), n, method}.
    """
    a, b = finite_array(x, "x", 4), finite_array(y, "y", 4)
    if a.size != b.size:
        raise ValueError(f"x and y must have the same length, got {a.size} and {b.size}")
    res = stats.spearmanr(a, b)
    r, n = float(res.statistic), a.size
    if not np.isfinite(r):
        raise ValueError("Spearman's rho is undefined (a constant input)")
    z_crit = stats.norm.ppf(0.5 + confidence / 2)
    if abs(r) >= 1:
        lo = hi = r
    else:
        half = z_crit * np.sqrt((1 + r ** 2 / 2) / (n - 3))
        lo, hi = float(np.tanh(np.arctanh(r) - half)), float(np.tanh(np.arctanh(r) + half))
    return {"rho": r, "ci_low": lo, "ci_high": hi, "p": float(res.pvalue), "n": int(n), "method": "Bonett-Wright"}


# --- misalignment with human ratings ----------------------------------------------------------------------------------

def misalignment(df: pd.DataFrame, human: str, models: Sequence[str], item: str | None = None) -> pd.DataFrame:
    """Where does each model over- or under-value items relative to humans? Two methods side by side.

    * rank method: ``rank_diff = human_rank - model_rank`` (rank 1 = highest score, ties averaged). Positive means the
      model puts the item nearer the top than humans do (over-values it). Robust to each scale's shape.
    * z method: ``z_diff = model_z - human_z`` with each column standardised over the shared items. Keeps distances
      (an outlier the model loves counts more) but is sensitive to skewed score scales.

    Returns one row per item x model: item, model, human_score, model_score, human_rank, model_rank, rank_diff,
    human_z, model_z, z_diff, plus any extra columns of ``df`` (e.g. category) carried along.
    """
    models = list(models)
    if not models:
        raise ValueError("models is empty; pass the score column names of the models to compare")
    item = item or (df.index.name or "item")
    frame = df.reset_index() if item not in df.columns else df
    require_columns(frame, [item, human, *models])
    bad = [c for c in [human, *models] if frame[c].isna().any()]
    if bad:
        raise ValueError(f"NaN scores in columns {bad}; restrict to items with every score present first")
    if frame[item].duplicated().any():
        raise ValueError(f"duplicate items in column {item!r}")
    if len(frame) < 3:
        raise ValueError(f"need at least 3 items, got {len(frame)}")
    extra = [c for c in frame.columns if c not in {item, human, *models}]
    h = frame[human].astype(float)
    h_rank, h_z = h.rank(ascending=False), stats.zscore(h.to_numpy(), ddof=1)
    parts = []
    for m in models:
        s = frame[m].astype(float)
        m_rank, m_z = s.rank(ascending=False), stats.zscore(s.to_numpy(), ddof=1)
        parts.append(pd.DataFrame({
            "item": frame[item].to_numpy(), "model": m, "human_score": h.to_numpy(), "model_score": s.to_numpy(),
            "human_rank": h_rank.to_numpy(), "model_rank": m_rank.to_numpy(),
            "rank_diff": (h_rank - m_rank).to_numpy(), "human_z": h_z, "model_z": m_z, "z_diff": m_z - h_z,
            **{c: frame[c].to_numpy() for c in extra}}))
    return pd.concat(parts, ignore_index=True)


def most_misaligned(mis: pd.DataFrame, n: int = 10, method: str = "rank") -> pd.DataFrame:
    """The n most over-valued and n most under-valued items per model, by ``rank`` or ``z`` differences.

    Adds ``direction`` (over/under) and the other method's rank of the same item so the two can be compared.
    """
    col = {"rank": "rank_diff", "z": "z_diff"}.get(method)
    if col is None:
        raise ValueError(f"method must be 'rank' or 'z', got {method!r}")
    require_columns(mis, ["model", "item", "rank_diff", "z_diff"], "mis (from misalignment())")
    out = []
    for _, g in mis.groupby("model", sort=False):
        g = g.assign(rank_diff_order=g["rank_diff"].rank(ascending=False), z_diff_order=g["z_diff"].rank(ascending=False))
        out.append(g.nlargest(n, col).assign(direction="over"))
        out.append(g.nsmallest(n, col).assign(direction="under"))
    return pd.concat(out, ignore_index=True)


def _cluster_mean_ci(values: np.ndarray, clusters: np.ndarray | None, confidence: float, n_resamples: int,
                     seed: int | None) -> tuple[float, float]:
    """Percentile bootstrap CI of a mean, resampling whole clusters when ``clusters`` is given.

    A resampled data set takes clusters with replacement and keeps all rows of each, so the mean is
    sum(cluster sums) / sum(cluster sizes): rows that share a cluster (an item under three prompts) move together.
    """
    if clusters is None:
        ci = stats.bootstrap((values,), np.mean, n_resamples=n_resamples, confidence_level=confidence,
                             method="percentile", rng=np.random.default_rng(seed)).confidence_interval
        return float(ci.low), float(ci.high)
    codes, _ = pd.factorize(clusters)
    sums = np.bincount(codes, weights=values)
    sizes = np.bincount(codes).astype(float)
    if sums.size < 3:
        return np.nan, np.nan
    ci = stats.bootstrap((sums, sizes), lambda s, c, axis=-1: s.sum(axis=axis) / c.sum(axis=axis), paired=True,
                         vectorized=True, n_resamples=n_resamples, confidence_level=confidence,
                         method="percentile", rng=np.random.default_rng(seed)).confidence_interval
    return float(ci.low), float(ci.high)


def misalignment_by(mis: pd.DataFrame, by: str | Sequence[str] = "category", *, cluster: str | None = "item",
                    confidence: float = 0.95, n_resamples: int = 999, seed: int | None = 0) -> pd.DataFrame:
    """Mean rank and z differences per model x group, each with a cluster-bootstrap CI of the mean.

    ``mis`` often holds one row per item x prompt (the same item scored under several prompts). Those rows are not
    independent, so the bootstrap resamples whole ``cluster``s (default: items); ``cluster=None`` resamples rows.
    Returns model, *by, n (rows), n_clusters, and for rank_diff and z_diff: _mean, _ci_low, _ci_high.
    """
    by = [by] if isinstance(by, str) else list(by)
    require_columns(mis, ["model", "rank_diff", "z_diff", *by, *([cluster] if cluster else [])],
                    "mis (from misalignment())")
    rows = []
    for key, g in mis.groupby(["model", *by], sort=False, dropna=False):
        cl = g[cluster].to_numpy() if cluster else None
        n_clusters = int(pd.Series(cl).nunique()) if cluster else len(g)
        row = dict(zip(["model", *by], key), n=len(g), n_clusters=n_clusters)
        for col in ("rank_diff", "z_diff"):
            v = g[col].to_numpy(float)
            row[f"{col}_mean"] = v.mean()
            if n_clusters >= 3 and np.ptp(v) > 0:
                row[f"{col}_ci_low"], row[f"{col}_ci_high"] = _cluster_mean_ci(v, cl, confidence, n_resamples, seed)
            else:
                row[f"{col}_ci_low"] = row[f"{col}_ci_high"] = np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def consensus_misalignment(mis: pd.DataFrame, by: Sequence[str] = (), *, aggregate: str = "median",
                           extra: Sequence[str] = ()) -> pd.DataFrame:
    """One row per item (x ``by``): the models' consensus rank and z differences.

    ``aggregate`` is how the models are combined: ``'median'`` (robust: one model with an extreme rank cannot move
    the consensus) or ``'mean'``. Columns: item, *by, *extra (first value), human_rank, model_rank, rank_diff,
    z_diff (each aggregated over models), share_over (share of models with rank_diff > 0), n_models.
    """
    if aggregate not in ("mean", "median"):
        raise ValueError(f"aggregate must be 'mean' or 'median', not {aggregate!r}")
    by, extra = list(by), list(extra)
    require_columns(mis, ["item", "model", "human_rank", "model_rank", "rank_diff", "z_diff", *by, *extra],
                    "mis (from misalignment())")
    g = mis.groupby(["item", *by], sort=False)
    out = g[["human_rank", "model_rank", "rank_diff", "z_diff"]].agg(aggregate)
    out["share_over"] = g["rank_diff"].agg(lambda v: float((v > 0).mean()))
    out["n_models"] = g["model"].nunique()
    for c in extra:
        out[c] = g[c].first()
    return out.reset_index()[["item", *by, *extra, "human_rank", "model_rank", "rank_diff", "z_diff", "share_over",
                              "n_models"]]


def top_overlap(a: pd.DataFrame, b: pd.DataFrame, n: int, column: str = "rank_diff", item: str = "item",
                largest: bool = False) -> dict:
    """How many of the n most extreme items by ``column`` two consensus tables share (e.g. mean vs median).

    ``largest=False`` compares the n smallest (the most under-valued for rank_diff). Returns {n, shared, share,
    only_a, only_b} with the item lists that differ.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    pick = (lambda d: d.nlargest(n, column)) if largest else (lambda d: d.nsmallest(n, column))
    ta, tb = list(pick(a)[item]), list(pick(b)[item])
    shared = [x for x in ta if x in set(tb)]
    return {"n": n, "shared": len(shared), "share": len(shared) / n, "only_a": [x for x in ta if x not in set(tb)],
            "only_b": [x for x in tb if x not in set(ta)]}


def extremes_side_by_side(consensus: pd.DataFrame, by: str, n: int, direction: str = "under",
                          column: str = "rank_diff", item: str = "item", fmt: str = "{:+.0f}") -> pd.DataFrame:
    """The n most under- (or over-) valued items of each level of ``by`` (e.g. each prompt, and 'pooled'), one
    column per level: 'item (value)'. Rows are ranks 1..n."""
    if direction not in ("under", "over"):
        raise ValueError(f"direction must be 'under' or 'over', not {direction!r}")
    require_columns(consensus, [by, item, column])
    cols = {}
    for level, g in consensus.groupby(by, sort=False):
        top = g.nsmallest(n, column) if direction == "under" else g.nlargest(n, column)
        cols[level] = [f"{i} ({fmt.format(v)})" for i, v in zip(top[item], top[column])] + [""] * (n - len(top))
    out = pd.DataFrame(cols, index=pd.RangeIndex(1, n + 1, name="rank"))
    return out


def top_overlap_by(a: pd.DataFrame, b: pd.DataFrame, by: str, n: int, column: str = "rank_diff",
                   item: str = "item", names: tuple[str, str] = ("a", "b")) -> pd.DataFrame:
    """:func:`top_overlap` of the n most under- and most over-valued items, for each level of ``by`` present in
    both tables. Returns by, direction ('under'|'over'), shared, n, only_<names[0]>, only_<names[1]> (joined)."""
    require_columns(a, [by, item, column])
    require_columns(b, [by, item, column])
    rows = []
    for level in [x for x in pd.unique(a[by]) if x in set(b[by])]:
        ga, gb = a[a[by] == level], b[b[by] == level]
        for direction, largest in (("under", False), ("over", True)):
            ov = top_overlap(ga, gb, n, column=column, item=item, largest=largest)
            rows.append({by: level, "direction": direction, "shared": ov["shared"], "n": n,
                         f"only_{names[0]}": ", ".join(map(str, ov["only_a"])),
                         f"only_{names[1]}": ", ".join(map(str, ov["only_b"]))})
    return pd.DataFrame(rows)
