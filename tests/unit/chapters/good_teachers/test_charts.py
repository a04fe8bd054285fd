"""rmbook.chapters.good_teachers.charts: the good_teachers charts' specs, and a clear error for a table without the
columns."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.chapters.good_teachers import charts


def test_teaching_trajectory_chart_marks_the_gain_step_and_facets_by_pi0():
    traj = pd.DataFrame({"step": [0, 1, 0, 1], "gain": [0, 0.1, 0, 0.3], "model": ["a", "a", "b", "b"],
                         "pi0": ["uniform"] * 4})
    spec = charts.teaching_trajectory_chart(traj, mark_step=1, title="t").to_dict()
    assert "facet" in spec and "rule" in str(spec)
    with pytest.raises(ValueError, match=r"lacks columns \['pi0'\]"):
        charts.teaching_trajectory_chart(traj.drop(columns="pi0"))


def test_predictor_scatter_has_one_panel_per_predictor():
    table = pd.DataFrame({"model": ["a", "b", "c"], "pi0": ["u"] * 3, "accuracy_uniform": [0.6, 0.7, 0.8],
                          "variance_pi0": [1.0, 1.2, 0.9], "gain_T": [0.1, 0.3, 0.2]})
    spec = charts.predictor_scatter(table, ["accuracy_uniform", "variance_pi0"], "gain_T").to_dict()
    assert [p["encoding"]["x"]["field"] for p in spec["hconcat"]] == ["accuracy_uniform", "variance_pi0"]
    with pytest.raises(ValueError, match="gain_T"):
        charts.predictor_scatter(table.drop(columns="gain_T"), ["accuracy_uniform"], "gain_T")
