"""The chapter's widest table folded into a few named columns, so that it fits the page
(:mod:`rmbook.report.compact_tables`); the analysis and the results keep every column."""
from __future__ import annotations

import pandas as pd

from rmbook.report.compact_tables import cells, versus
from rmlib.stats import require_columns

__all__ = ["slower_pairs_view"]


def slower_pairs_view(pairs: pd.DataFrame) -> pd.DataFrame:
    """good_teachers: each pair of RMs where the more accurate one teaches more slowly
    (:func:`rmbook.chapters.good_teachers.stats.slower_but_more_accurate`): the two RMs, then accuracy, speed and reward
    variance under π0 as "more accurate vs less accurate", whether the slower (more accurate) RM's variance is the
    lower, the higher or equal to the other's, and the accuracy gap."""
    require_columns(pairs, ["pi0", "more_accurate", "less_accurate", "accuracy_more", "accuracy_less",
                            "speed_more_accurate", "speed_less_accurate", "variance_more_accurate",
                            "variance_less_accurate", "lower_variance", "higher_variance", "accuracy_gap"],
                    "slower pairs")
    out = pd.DataFrame({"π0": pairs["pi0"], "more vs less accurate RM": cells(pairs, lambda a, b: f"{a} vs {b}",
                                                                              "more_accurate", "less_accurate")})
    out["accuracy"] = cells(pairs, versus, "accuracy_more", "accuracy_less")
    out["speed"] = cells(pairs, versus, "speed_more_accurate", "speed_less_accurate")
    out["variance under π0"] = cells(pairs, versus, "variance_more_accurate", "variance_less_accurate")
    out["slower RM's variance"] = cells(pairs, lambda lo, hi: "lower" if lo else "higher" if hi else "equal",
                                         "lower_variance", "higher_variance")
    out["accuracy gap"] = pairs["accuracy_gap"]
    return out
