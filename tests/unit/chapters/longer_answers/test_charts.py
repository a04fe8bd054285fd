"""rmbook.chapters.longer_answers.charts and rmbook.report.tables.gcg_extremes_table: the longer_answers chapter's
convergence chart and extremes table, from planted GCG rows."""
from __future__ import annotations

import pandas as pd
import pytest

from rmbook.chapters.longer_answers import charts
from rmbook.report.tables import gcg_extremes_table

RUNS = pd.DataFrame({"model": ["m"] * 4 + ["other"], "prompt_key": "g", "direction": ["max", "max", "min", "min", "max"],
                     "length": [2, 2, 4, 4, 2], "restart": [0, 0, 0, 0, 0], "step": [0, 1, 0, 1, 0],
                     "reward": [0.1, 0.5, -0.2, -0.9, 3.0], "text": ["a b", "c d", "e", "f", "x"]})


def test_convergence_chart_facets_one_model_and_prompt_by_direction_and_length():
    spec = charts.convergence_chart(RUNS, "m", "g").to_dict()
    assert spec["facet"]["row"]["field"] == "direction" and spec["facet"]["column"]["field"] == "length"
    assert spec["title"] == "m: convergence (g)"
    rows = next(iter(spec["datasets"].values()))
    assert len(rows) == 4 and {r["length"] for r in rows} == {"n = 2", "n = 4"}
    with pytest.raises(ValueError, match="restart"):
        charts.convergence_chart(RUNS.drop(columns="restart"), "m", "g")


def test_gcg_extremes_table_names_the_columns_for_a_reader():
    cmp = pd.DataFrame({"model": ["m"], "prompt_key": ["g"], "direction": ["max"], "length": [2],
                        "best_text": ["a b"], "best": [1.5], "one_token_text": ["a"], "one_token_extreme": [1.0],
                        "n_beyond": [1], "n_restarts": [2], "median": [1.2]})
    table = gcg_extremes_table(cmp)
    assert list(table.columns) == ["model", "prompt_key", "direction", "length", "response found", "reward",
                                   "one-token extreme", "its reward", "restarts beyond it", "restarts"]
    with pytest.raises(ValueError, match="best_text"):
        gcg_extremes_table(cmp.drop(columns="best_text"))
