"""rmbook.report.charts.beside_chart: a compute-mode chapter's models beside the paper RMs, one row per measure, the
paper RMs coloured by base family and each computed model a diamond; rows name the model when each was measured on
its own words."""
from __future__ import annotations

import pandas as pd

from rmbook.report import charts

PAPER = {"R-Gem-2B": "Gemma", "S-Lla-8B-v0.2": "Llama"}


def _found(labels):
    own = pd.DataFrame([{"label": m, "measure": h, "estimate": 0.1} for m in labels for h in ("h+", "h−")])
    ref = pd.DataFrame([{"label": p, "measure": h, "estimate": 0.2, "for_label": m}
                        for m in labels for p in PAPER for h in ("h+", "h−")])
    return {"own": own, "reference": ref}


def _data(chart) -> pd.DataFrame:
    return pd.DataFrame(chart.to_dict()["datasets"][chart.to_dict()["data"]["name"]])


def test_one_model_one_row_per_measure_and_families_in_the_legend():
    data = _data(charts.beside_chart(_found(["mine"]), "t", "x"))
    assert sorted(data["row"].unique()) == ["h+", "h−"]
    assert set(data["family"]) == {"Gemma-based paper RM", "Llama-based paper RM", "mine"}


def test_several_models_name_the_model_each_row_was_measured_beside():
    data = _data(charts.beside_chart(_found(["a", "b"]), "t", "x"))
    assert "h+, beside a" in set(data["row"]) and "h−, beside b" in set(data["row"]) and data["row"].nunique() == 4


def test_nothing_placed_draws_nothing():
    empty = pd.DataFrame(columns=["label", "measure", "estimate"])
    assert charts.beside_chart({"own": empty, "reference": empty}, "t", "x") is None
