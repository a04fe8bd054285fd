"""The chapter's widest table folded into a few named columns, so that it fits the page
(:mod:`rmbook.report.compact_tables`); the analysis and the results keep every column."""
from __future__ import annotations

import pandas as pd

from rmbook.report.compact_tables import cells, interval, p_text, versus, with_extra
from rmlib.stats import require_columns

__all__ = ["contrast_view"]


def contrast_view(tests: pd.DataFrame) -> pd.DataFrame:
    """implicit_rewards: each panel's word-group contrast (:func:`rmbook.analysis.families.word_contrast`): the
    groups with their sizes, the mean ranks, the difference, Hedges' g with its 95% CI, p and the FDR-adjusted p
    (and the reward kind, where the table has it)."""
    require_columns(tests, ["group_a", "group_b", "n_a", "n_b", "mean_a", "mean_b", "difference", "hedges_g",
                            "g_ci_low", "g_ci_high", "p", "p_fdr"], "word contrast")
    panel = list(tests.columns[:list(tests.columns).index("group_a")])
    out = tests[panel].copy()
    out["groups (n)"] = cells(tests, lambda a, b, na, nb: f"{a} vs {b} ({int(na)} vs {int(nb)})",
                               "group_a", "group_b", "n_a", "n_b")
    out["mean rank"] = cells(tests, versus, "mean_a", "mean_b")
    out["difference"] = tests["difference"]
    out["Hedges' g [95% CI]"] = cells(tests, interval, "hedges_g", "g_ci_low", "g_ci_high")
    out["p (FDR)"] = cells(tests, lambda p, q: with_extra(p, q, p_text), "p", "p_fdr")
    if "reward_kind" in tests:
        out["reward kind"] = tests["reward_kind"]
    return out
