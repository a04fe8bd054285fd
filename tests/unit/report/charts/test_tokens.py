"""rmlib.report.charts.tokens: the rank-trajectory chart's spec."""
from __future__ import annotations

import pandas as pd

from rmlib.report import charts


def test_rank_trajectory_chart_spec():
    traj = pd.DataFrame({"item": ["a", "a", "b", "b"], "ranker": ["humans", "m1"] * 2, "rank percentile": [1, 50, 90, 10]})
    spec = charts.rank_trajectory_chart(traj, ["humans", "m1"]).to_dict()
    assert spec["mark"]["type"] == "line" and spec["encoding"]["y"]["scale"]["reverse"] is True


def test_tail_table_ranks_both_tails_and_the_explorer_binds_its_controls():
    from rmlib.report.charts import tail_explorer, tail_table
    sweeps = pd.DataFrame({"model": "m", "model_label": "M", "prompt": "p", "text": [" a", "b", "c", "d", "e", "f"],
                           "reward": [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]})
    tb = tail_table(sweeps, k_max=25)                                  # capped at half the sweep: 3
    assert list(tb.loc[tb["tail"] == "top", "token"]) == ["␣a", "b", "c"]
    assert list(tb.loc[tb["tail"] == "bottom", "token"]) == ["f", "e", "d"] and tb["rank"].max() == 3
    spec = tail_explorer(tb).to_dict()
    assert {p["name"] for p in spec["params"]} == {"model_pick", "prompt_pick", "k_pick"}
    assert len(spec["hconcat"]) == 2
