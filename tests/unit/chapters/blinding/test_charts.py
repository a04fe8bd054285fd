"""rmbook.chapters.blinding.charts on the planted-bias run (tests/unit/conftest.py)."""
from __future__ import annotations

import pytest

from rmbook.chapters.blinding import analysis as B
from rmbook.chapters.blinding import charts as C
from rmbook.chapters.blinding.prompts import CONDITION_LABELS


@pytest.fixture(scope="module")
def res(planted):
    _, _, run = planted
    return B.disparity(run.table, n_resamples=200)


def _rows(spec: dict) -> list[dict]:
    return spec["data"]["values"] if "values" in spec.get("data", {}) else next(iter(spec["datasets"].values()))


def test_charts_draw_every_condition_with_its_interval(res):
    rows = _rows(C.disparity_chart(res["by_axis"], "gap").to_dict())
    assert sorted(x["condition_label"] for x in rows) == sorted(CONDITION_LABELS.values())
    assert all(x["gap_ci_low"] <= x["gap"] + 1e-12 <= x["gap_ci_high"] + 2e-12 for x in rows)
    rows = _rows(C.effects_chart(res["effects"]).to_dict())
    assert len(rows) == 8 * 3 and "3 blinded replica" not in {x["condition_label"] for x in rows}
    with pytest.raises(ValueError, match="measure"):
        C.disparity_chart(res["by_axis"], "range")
    with pytest.raises(ValueError, match="nothing to draw"):
        C.effects_chart(res["effects"].iloc[:0])
