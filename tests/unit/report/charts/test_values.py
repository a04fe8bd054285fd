"""rmbook.report.charts.values: the fine-tuning charts draw what they are given."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


def test_gap_chart_draws_what_it_is_given():
    from rmbook.report.charts import gap_chart

    by_base = pd.DataFrame({"base_model": ["a", "b"] * 2, "prompt_label": ["positive"] * 2 + ["negative"] * 2,
                            "rm_gap": [0.1, -0.2, 0.0, 0.05], "ci_low": [0.0, -0.3, np.nan, np.nan],
                            "ci_high": [0.2, -0.1, np.nan, np.nan], "base_lm_gap": [0.2, -0.1, 0.1, 0.1]})
    spec = gap_chart(by_base, "base_model").to_dict()
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in spec["spec"]["layer"]]
    assert marks == ["point", "rule", "point", "rule"]  # RM dots, CI bars, base-LM diamonds, zero line
    assert spec["spec"]["layer"][0]["encoding"]["x"]["type"] == "nominal"
    by_n = pd.DataFrame({"n_pairs": [64, 512], "prompt_label": ["positive"] * 2, "rm_gap": [0.1, 0.2]})
    spec = gap_chart(by_n, "n_pairs").to_dict()
    assert spec["spec"]["layer"][0]["encoding"]["x"]["type"] == "quantitative"
    assert spec["spec"]["layer"][0]["encoding"]["x"]["scale"]["type"] == "log"
    assert len(spec["spec"]["layer"]) == 2  # no CI or base columns, no extra layers
    with pytest.raises(ValueError, match="prompt_label"):
        gap_chart(by_n.drop(columns="prompt_label"), "n_pairs")


def test_published_trajectory_chart_gap_is_first_minus_second():
    from rmbook.report.charts import published_trajectory_chart

    ranks = pd.DataFrame({"file": "f", "data_source": "ultrafeedback", "quantity_k": 27, "method": "BT",
                          "base_family": "Llama", "checkpoint": [1000, 1000, 2000, 2000],
                          "category": ["Agency", "Communion"] * 2, "median_rank": [100.0, 150.0, 120.0, 110.0]})
    chart = published_trajectory_chart(ranks)
    assert chart.data.sort_values("checkpoint")["gap"].tolist() == [-50.0, 10.0]
    assert set(chart.data["run"]) == {"ultrafeedback 27k BT"}
    with pytest.raises(ValueError, match="load_checkpoint_ranks"):
        published_trajectory_chart(ranks.drop(columns="checkpoint"))
