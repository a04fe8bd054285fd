"""rmbook.chapters.elo_misalignment.tables: the chapter's widest table in a few named columns (#43 item 3), every number a
reader needs still there."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.elo_misalignment.tables import topic_view


def test_the_topic_table_keeps_the_null_range_the_direction_and_both_ps():
    raw = pd.DataFrame([{"prompt": "greatest", "topic": "nature", "n_items": 30, "n_flagged": 2, "expected": 4.24,
                         "ratio": 0.471, "null_low": 1.0, "null_high": 8.0, "p_over": 0.96, "p_under": 0.15,
                         "p": 0.31, "p_fdr_within": 0.99, "direction": "", "p_fdr": 0.99}])
    view = topic_view(raw)
    assert list(view.columns) == ["prompt", "topic", "items", "flagged (null: mean [95%])", "ratio", "direction",
                                  "p (FDR)"]
    row = view.iloc[0]  # the null's range is of the flagged count (rmlib.stats.enrichment), not of the ratio
    assert (row["flagged (null: mean [95%])"], row["ratio"]) == ("2 (4.24 [1, 8])", 0.471)
    assert (row["direction"], row["p (FDR)"]) == ("—", "0.31 (0.99)")
    pooled = raw.drop(columns="prompt").assign(ratio_unstratified=3.34, p_fdr_unstratified=0.0004)
    assert topic_view(pooled).iloc[0]["unstratified ratio (p FDR)"] == "3.34 (< 0.001)"
