"""rmbook.report.charts.tokens: the rank-trajectory chart's spec."""
from __future__ import annotations

import pandas as pd

from rmbook.report import charts


def test_rank_trajectory_chart_spec():
    traj = pd.DataFrame({"item": ["a", "a", "b", "b"], "ranker": ["humans", "m1"] * 2, "rank percentile": [1, 50, 90, 10]})
    spec = charts.rank_trajectory_chart(traj, ["humans", "m1"]).to_dict()
    assert spec["mark"]["type"] == "line" and spec["encoding"]["y"]["scale"]["reverse"] is True


def test_tail_table_ranks_both_tails_and_the_explorer_binds_its_controls():
    from rmbook.report.charts import tail_explorer, tail_table
    sweeps = pd.DataFrame({"model": "m", "model_label": "M", "prompt": "p", "text": [" a", "b", "c", "d", "e", "f"],
                           "token_id": range(6), "reward": [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]})
    tb = tail_table(sweeps, k_max=25)                                  # capped at half the sweep: 3
    assert list(tb.loc[tb["tail"] == "top", "token"]) == ["␣a", "b", "c"]
    assert list(tb.loc[tb["tail"] == "bottom", "token"]) == ["f", "e", "d"] and tb["rank"].max() == 3
    spec = tail_explorer(tb).to_dict()
    assert {p["name"] for p in spec["params"]} == {"model_pick", "prompt_pick", "k_pick"}
    assert len(spec["hconcat"]) == 2
    assert all(panel["encoding"]["y"]["field"] == "token" for panel in spec["hconcat"])


def test_two_ids_that_display_alike_stay_two_bars_each_with_its_own_reward():
    """Two byte fragments both show as "\ufffd\ufffd": keyed by text, the chart stacked them into one bar of -58, a
    reward no token has (#43 item 6). Each keeps its bar, labelled with its id; a text shown once keeps its label."""
    from rmbook.report.charts import tail_table
    sweeps = pd.DataFrame({"model": "m", "model_label": "M", "prompt": "p", "token_id": [10, 11, 12, 13, 14, 15],
                           "text": ["\ufffd\ufffd", "\ufffd\ufffd", "x", "y", "z", "w"],
                           "reward": [-31.0, -27.0, 3.0, 2.0, 1.0, 0.0]})
    bottom = tail_table(sweeps)[lambda t: t["tail"] == "bottom"]
    assert list(bottom.token) == ["\ufffd\ufffd (id 10)", "\ufffd\ufffd (id 11)", "w"]
    assert bottom.token.is_unique and list(bottom.token_id) == [10, 11, 15]
    assert bottom.groupby("token").reward.sum().min() == -31.0   # no bar is the sum of two tokens
