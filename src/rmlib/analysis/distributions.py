"""Score distributions: what kind of token sits in each tail, and which tokens can be compared across tokenizers.

* :func:`tail_composition` compares category shares in the top-k and bottom-k answers with the whole set (Wilson CIs
  from statsmodels), so "the bottom tail is mostly sub-word junk" becomes a number with an interval.
* :func:`shared_vocabulary` aligns sweeps of models with different tokenizers on the decoded text both vocabularies
  contain, which is the only item set on which their rankings can be correlated.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmlib.analysis.categories import REPLACEMENT_CHAR
from rmlib.stats import require_columns

__all__ = ["tail_composition", "shared_vocabulary", "vocabulary_overlap"]


def tail_composition(df: pd.DataFrame, value: str = "reward", k: int = 100, feature: str = "category",
                     by: str | None = None, confidence: float = 0.95) -> pd.DataFrame:
    """Share of each ``feature`` value among the top-k, the bottom-k and all tokens (per ``by`` group).

    Columns: [by], tail (top|bottom|all), value, n, count, share, ci_low, ci_high, lift (share / share in all).
    CIs are Wilson intervals (statsmodels). The 'all' row is the baseline a tail should be read against.
    """
    from statsmodels.stats.proportion import proportion_confint

    require_columns(df, [value, feature] + ([by] if by else []), "df")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    groups = df.groupby(by, sort=False, observed=True) if by else [(None, df)]
    rows = []
    for key, g in groups:
        g = g.dropna(subset=[value])
        if len(g) < 2 * k:
            raise ValueError(f"{by}={key!r} has {len(g)} scored rows, fewer than 2k = {2 * k}; lower k")
        values = list(g[feature].cat.categories) if isinstance(g[feature].dtype, pd.CategoricalDtype) \
            else sorted(g[feature].dropna().unique().tolist())
        parts = {"top": g.nlargest(k, value), "bottom": g.nsmallest(k, value), "all": g}
        base = g[feature].value_counts(normalize=True)
        for tail, part in parts.items():
            counts = part[feature].value_counts()
            for v in values:
                c = int(counts.get(v, 0))
                lo, hi = proportion_confint(c, len(part), alpha=1 - confidence, method="wilson")
                share = c / len(part)
                b = float(base.get(v, 0.0))
                rows.append({**({by: key} if by else {}), "tail": tail, "value": v, "n": len(part), "count": c,
                             "share": share, "ci_low": float(lo), "ci_high": float(hi),
                             "lift": share / b if b > 0 else np.nan})
    return pd.DataFrame(rows)

def _clean_for_alignment(df: pd.DataFrame, key: str) -> pd.DataFrame:
    keep = ~df[key].astype(str).str.contains(REPLACEMENT_CHAR, regex=False) & (df[key].astype(str).str.strip() != "")
    if "is_special" in df.columns:
        keep &= ~df["is_special"].astype(bool)
    return df[keep]


def shared_vocabulary(frame: pd.DataFrame, *, model: str = "model", key: str = "text", value: str = "reward",
                      normalise: bool = False, agg: str = "max") -> pd.DataFrame:
    """Wide table (index: decoded token text; one column per model) over the texts every model's vocabulary has.

    Tokenizers differ, so token ids mean nothing across models; the decoded text is the common currency (the
    ICLR paper's 85,632-token intersection is built the same way). Special tokens, whitespace-only tokens and byte
    fragments (text containing U+FFFD) are dropped. Where several ids of one model decode to the same text,
    ``agg`` ('max', 'mean' or 'first') combines them. ``normalise=True`` keys on
    :func:`rmlib.data.normalise_token` (no leading space, lower case) instead, a looser match.
    """
    require_columns(frame, [model, key, value], "frame")
    if agg not in ("max", "mean", "first"):
        raise ValueError(f"agg must be 'max', 'mean' or 'first', got {agg!r}")
    d = _clean_for_alignment(frame, key)
    if normalise:
        from rmlib.data import normalise_token

        d = d.assign(**{key: d[key].map(normalise_token)})
        d = d[d[key] != ""]
    models = list(dict.fromkeys(d[model]))
    if len(models) < 2:
        raise ValueError(f"shared_vocabulary needs sweeps of at least 2 models, got {models}")
    wide = d.groupby([key, model], sort=False)[value].agg(agg).unstack(model)[models].dropna()
    if len(wide) < 3:
        raise ValueError(f"the models {models} share only {len(wide)} decoded tokens; nothing to compare")
    wide.index.name = "text"
    wide.columns.name = None
    return wide


def vocabulary_overlap(frame: pd.DataFrame, shared: pd.DataFrame, *, model: str = "model",
                       key: str = "text") -> pd.DataFrame:
    """Per model: n_tokens swept, n_distinct_texts (after cleaning), n_shared, share_shared."""
    require_columns(frame, [model, key], "frame")
    clean = _clean_for_alignment(frame, key)
    rows = []
    for m in shared.columns:
        n_tok = int((frame[model] == m).sum())
        n_txt = int(clean.loc[clean[model] == m, key].nunique())
        rows.append({"model": m, "n_tokens": n_tok, "n_distinct_texts": n_txt, "n_shared": len(shared),
                     "share_shared": len(shared) / n_txt if n_txt else np.nan})
    return pd.DataFrame(rows)

