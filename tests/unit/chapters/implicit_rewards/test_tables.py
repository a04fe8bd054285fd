"""rmbook.chapters.implicit_rewards.tables: the chapter's widest table in a few named columns (#43 item 3), every number a
reader needs still there."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.implicit_rewards.tables import contrast_view


def test_a_word_contrast_keeps_its_panel_and_puts_g_with_its_interval():
    raw = pd.DataFrame([{"model": "MWLR(a‖b)", "foundation": "care", "valence": "negative", "group_a": "virtue",
                         "group_b": "vice", "n_a": 3, "n_b": 3, "mean_a": 8.33, "mean_b": 13.2, "difference": -4.83,
                         "t": -0.78, "p": 0.5, "hedges_g": -0.509, "reject": False, "p_fdr": 0.89,
                         "g_ci_low": -6.55, "g_ci_high": 1.77}])
    view = contrast_view(raw)
    assert list(view.columns) == ["model", "foundation", "valence", "groups (n)", "mean rank", "difference",
                                  "Hedges' g [95% CI]", "p (FDR)"]
    row = view.iloc[0]
    assert (row["groups (n)"], row["mean rank"]) == ("virtue vs vice (3 vs 3)", "8.33 vs 13.2")
    assert (row["Hedges' g [95% CI]"], row["p (FDR)"]) == ("-0.509 [-6.55, 1.77]", "0.5 (0.89)")
    assert contrast_view(raw.assign(reward_kind="MWLR")).columns[-1] == "reward kind"
