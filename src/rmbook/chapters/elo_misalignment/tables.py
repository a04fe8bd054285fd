"""The chapter's widest table folded into a few named columns, so that it fits the page
(:mod:`rmbook.report.compact_tables`); the analysis and the results keep every column."""
from __future__ import annotations

import pandas as pd

from rmbook.report.compact_tables import MISSING, any_missing, cells, interval, number_text, p_text, with_extra
from rmlib.stats import require_columns

__all__ = ["topic_view"]


def topic_view(enrichment: pd.DataFrame) -> pd.DataFrame:
    """elo_misalignment: each topic among the most undervalued items (:func:`rmbook.chapters.elo_misalignment.analysis.
    undervalued_topics`), by prompt or pooled: items, flagged with the null's mean and 95% range of that count, the
    ratio of the two, the direction, p (FDR-adjusted p), and the unstratified ratio (its adjusted p) where the table
    has it."""
    require_columns(enrichment, ["topic", "n_items", "n_flagged", "expected", "ratio", "null_low", "null_high", "p",
                                 "p_fdr"], "topic enrichment")
    lead = [c for c in ("prompt", "topic") if c in enrichment]
    out = enrichment[lead].copy()
    out["items"] = enrichment["n_items"].map(number_text)
    out["flagged (null: mean [95%])"] = cells(
        enrichment, lambda n, e, lo, hi: MISSING if any_missing(n) else f"{number_text(n)} ({interval(e, lo, hi)})",
        "n_flagged", "expected", "null_low", "null_high")
    out["ratio"] = enrichment["ratio"]
    if "direction" in enrichment:
        out["direction"] = enrichment["direction"].fillna("").replace("", MISSING)
    out["p (FDR)"] = cells(enrichment, lambda p, q: with_extra(p, q, p_text), "p", "p_fdr")
    if "ratio_unstratified" in enrichment:
        out["unstratified ratio (p FDR)"] = cells(enrichment, lambda r, q: with_extra(r, q, number_text, p_text),
                                                   "ratio_unstratified", "p_fdr_unstratified")
    return out
