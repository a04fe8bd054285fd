"""The chapter's widest table folded into a few named columns, so that it fits the page
(:mod:`rmbook.report.compact_tables`); the analysis and the results keep every column."""
from __future__ import annotations

import pandas as pd

from rmbook.report.compact_tables import cells, interval, number_text, p_text
from rmlib.stats import require_columns

__all__ = ["share_view"]


def share_view(shares: pd.DataFrame) -> pd.DataFrame:
    """mere_exposure: per word-frequency source and prompt valence, the share of (model, prompt) cells whose
    frequency slope is positive (:func:`rmbook.chapters.mere_exposure.slopes.exposure_shares`), with its 95% CI and
    count, the cells significant each way, the share under the null with its 95% range, and the p of a share that
    large."""
    require_columns(shares, ["source", "prompts", "n_words", "n_cells", "n_positive", "share", "ci_low", "ci_high",
                             "n_sig_positive", "n_sig_negative"], "shares")
    out = pd.DataFrame({"source": shares["source"], "prompts": shares["prompts"],
                        "words": shares["n_words"].map(number_text), "cells": shares["n_cells"].map(number_text)})
    out["positive slopes: share [95% CI]"] = cells(
        shares, lambda s, lo, hi, k, n: f"{interval(s, lo, hi)} ({int(k)} of {int(n)})",
        "share", "ci_low", "ci_high", "n_positive", "n_cells")
    out["significant + / −"] = cells(shares, lambda a, b: f"{int(a)} / {int(b)}", "n_sig_positive",
                                      "n_sig_negative")
    out["null share [95%]"] = cells(shares, interval, "null_mean", "null_low", "null_high")
    out["p (share ≥ observed)"] = cells(shares, p_text, "p_greater")
    return out
