"""rmbook.chapters.mere_exposure.tables: the chapter's widest table in a few named columns (#43 item 3), every number a
reader needs still there."""
from __future__ import annotations

import math

import pandas as pd

from rmbook.chapters.mere_exposure.tables import share_view

NAN = float("nan")


def test_a_share_row_says_its_count_and_a_pooled_row_has_no_null():
    raw = pd.DataFrame([
        {"source": "bnc", "prompts": "positive", "n_words": 718, "n_cells": 4, "n_positive": 3, "share": 0.75,
         "ci_low": 0.3, "ci_high": 0.95, "n_sig_positive": 2, "n_sig_negative": 0, "null_mean": 0.531,
         "null_low": 0.0, "null_high": 1.0, "p_greater": 0.39},
        {"source": "bnc", "prompts": "all", "n_words": 718, "n_cells": 8, "n_positive": 6, "share": 0.75,
         "ci_low": 0.41, "ci_high": 0.93, "n_sig_positive": 4, "n_sig_negative": 1, "null_mean": NAN,
         "null_low": NAN, "null_high": NAN, "p_greater": NAN}])
    view = share_view(raw)
    assert len(view.columns) == 8
    one, pooled = view.iloc[0], view.iloc[1]
    assert one["positive slopes: share [95% CI]"] == "0.75 [0.3, 0.95] (3 of 4)"
    assert (one["significant + / −"], one["null share [95%]"]) == ("2 / 0", "0.531 [0, 1]")
    assert (pooled["null share [95%]"], pooled["p (share ≥ observed)"]) == ("—", "—")
    assert not any(isinstance(v, float) and math.isnan(v) for v in view.to_numpy().ravel())
