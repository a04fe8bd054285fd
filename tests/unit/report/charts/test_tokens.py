"""rmlib.report.charts.tokens: the rank-trajectory chart's spec."""
from __future__ import annotations

import pandas as pd

from rmlib.report import charts


def test_rank_trajectory_chart_spec():
    traj = pd.DataFrame({"item": ["a", "a", "b", "b"], "ranker": ["humans", "m1"] * 2, "rank percentile": [1, 50, 90, 10]})
    spec = charts.rank_trajectory_chart(traj, ["humans", "m1"]).to_dict()
    assert spec["mark"]["type"] == "line" and spec["encoding"]["y"]["scale"]["reverse"] is True
