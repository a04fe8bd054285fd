"""rmbook.chapters.good_teachers.tables: the chapter's widest table in a few named columns (#43 item 3), every number a
reader needs still there."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.chapters.good_teachers.tables import slower_pairs_view


def test_slower_pairs_show_each_measure_as_more_vs_less_accurate():
    raw = pd.DataFrame([{"pi0": "random 100", "more_accurate": "F-Lla-8B", "less_accurate": "S-Gem-27B",
                         "accuracy_more": 0.687, "accuracy_less": 0.611, "speed_more_accurate": 0.091,
                         "speed_less_accurate": 0.1, "variance_more_accurate": 1.23, "variance_less_accurate": 1.46,
                         "lower_variance": True, "higher_variance": False, "accuracy_gap": 0.076}])
    view = slower_pairs_view(raw)
    assert len(view.columns) == 7
    row = view.iloc[0]
    assert row["more vs less accurate RM"] == "F-Lla-8B vs S-Gem-27B" and row["accuracy"] == "0.687 vs 0.611"
    assert row["variance under π0"] == "1.23 vs 1.46" and row["slower RM's variance"] == "lower"
    equal = raw.assign(lower_variance=False)
    assert slower_pairs_view(equal).iloc[0]["slower RM's variance"] == "equal"
    with pytest.raises(ValueError):
        slower_pairs_view(raw.drop(columns="accuracy_gap"))
