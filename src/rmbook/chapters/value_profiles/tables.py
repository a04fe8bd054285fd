"""The value chapters' test tables as a reader reads them (big_two and moral_foundations): the family permutation
tests, the post-hoc contrasts and the mixed model's terms in a few named columns, so they fit the text column (#43
item 3: fourteen and seventeen raw columns ran past it at 1280 px, and patsy's term names could not wrap). The
analysis keeps every column (:mod:`rmbook.analysis.families`); the exercises read those."""
from __future__ import annotations

import pandas as pd

from rmbook.report.prose.render import term
from rmlib.stats import require_columns

__all__ = ["mixed_view", "permutation_view", "posthoc_view"]


def _panel(df: pd.DataFrame, first: str) -> list[str]:
    """The columns that name a panel (category and valence, or foundation and valence): those before ``first``."""
    return list(df.columns[:list(df.columns).index(first)])


def permutation_view(df: pd.DataFrame) -> pd.DataFrame:
    """One row per panel: how many models of each family, their mean median ranks, the difference, Hedges' g, p and
    the FDR-adjusted p (:func:`rmbook.analysis.families.family_analysis`'s ``permutation``)."""
    require_columns(df, ["group_a", "group_b", "n_a", "n_b", "mean_a", "mean_b", "difference", "hedges_g", "p",
                         "p_fdr"], "permutation")
    out = df[_panel(df, "group_a")].copy()
    out["models"] = [f"{na} {a} vs {nb} {b}" for a, b, na, nb in zip(df["group_a"], df["group_b"], df["n_a"], df["n_b"])]
    out["mean median rank"] = [f"{x:.1f} vs {y:.1f}" for x, y in zip(df["mean_a"], df["mean_b"])]
    out["difference"] = df["difference"]
    out["Hedges' g"] = df["hedges_g"]
    out["p"] = df["p"]
    out["p (FDR)"] = df["p_fdr"]
    return out


def posthoc_view(df: pd.DataFrame) -> pd.DataFrame:
    """One row per contrast: the two levels, the difference of their means with its 95% CI, Hedges' g and the
    adjusted p (:func:`rmbook.analysis.families.family_analysis`'s ``posthoc``)."""
    require_columns(df, ["level_a", "level_b", "n_a", "n_b", "difference", "ci_low", "ci_high", "hedges_g",
                         "p_adj"], "posthoc")
    out = df[_panel(df, "level_a")].copy()
    out["contrast"] = [f"{a} vs {b} (n {na} vs {nb})" for a, b, na, nb in
                       zip(df["level_a"], df["level_b"], df["n_a"], df["n_b"])]
    out["difference [95% CI]"] = [f"{d:.1f} [{lo:.1f}, {hi:.1f}]" for d, lo, hi in
                                  zip(df["difference"], df["ci_low"], df["ci_high"])]
    out["Hedges' g"] = df["hedges_g"]
    out["p (adjusted)"] = df["p_adj"]
    return out


def mixed_view(df: pd.DataFrame) -> pd.DataFrame:
    """One row per fixed-effect term of the mixed model, named by its levels as the prose names it (``Llama ×
    Communion × positive``, not patsy's ``family[T.Llama]:category[T.Communion]:valence[T.positive]``, one word a
    reader cannot parse and a narrow column cannot wrap): the estimate with its 95% CI, its standard error, z and p
    (:func:`rmbook.analysis.families.family_analysis`'s ``mixed``)."""
    require_columns(df, ["term", "estimate", "se", "z", "p", "ci_low", "ci_high"], "mixed")
    out = pd.DataFrame({"term": [term(t) for t in df["term"]]}, index=df.index)
    out["estimate [95% CI]"] = [f"{e:.1f} [{lo:.1f}, {hi:.1f}]" for e, lo, hi in
                                zip(df["estimate"], df["ci_low"], df["ci_high"])]
    out["standard error"] = df["se"]
    out["z"] = df["z"]
    out["p"] = df["p"]
    return out
