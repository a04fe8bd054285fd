"""Where do models over- or under-value items relative to human ratings (EloEverything)? Two methods side by side
(rank and z differences), per model, per category (cluster bootstrap) and as a consensus over models."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from rmlib.errors import as_list
from rmlib.stats import cluster_mean_ci, require_columns

__all__ = ["misalignment", "most_misaligned", "misalignment_by", "consensus_misalignment", "top_overlap",
           "extremes_side_by_side", "top_overlap_by"]


def misalignment(df: pd.DataFrame, human: str, models: Sequence[str], item: str | None = None) -> pd.DataFrame:
    """Where does each model over- or under-value items relative to humans? Two methods side by side.

    * rank method: ``rank_diff = human_rank - model_rank`` (rank 1 = highest score, ties averaged). Positive means the
      model puts the item nearer the top than humans do (over-values it). Robust to each scale's shape.
    * z method: ``z_diff = model_z - human_z`` with each column standardised over the shared items. Keeps distances
      (an outlier the model loves counts more) but is sensitive to skewed score scales.

    Returns one row per item x model: item, model, human_score, model_score, human_rank, model_rank, rank_diff,
    human_z, model_z, z_diff, plus any extra columns of ``df`` (e.g. category) carried along.
    """
    models = as_list(models, "models")
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
                row[f"{col}_ci_low"], row[f"{col}_ci_high"] = cluster_mean_ci(v, cl, confidence, n_resamples, seed)
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
