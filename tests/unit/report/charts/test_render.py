"""rmbook.report.charts.render: the vega bundle inline only outside the book."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.report import charts
from rmbook.report.charts import render


@pytest.fixture
def scores():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"token": [f"t{i}" for i in range(200)], "score": rng.normal(size=200),
                         "model": np.repeat(["a", "b"], 100)})


def test_offline_renderer_inlines_bundle_only_outside_the_book(monkeypatch, scores):
    charts.enable_offline()
    chart = charts.scatter(scores, "score", "score", tooltip=["token"])
    monkeypatch.setenv("RMLIB_BOOK", "1")
    html = render._offline_renderer(chart.to_dict())["text/html"]
    assert "vegaEmbed(el, spec, opts)" in html and "window.vegaEmbed=" not in html
    monkeypatch.delenv("RMLIB_BOOK")
    charts.enable_offline()
    first = render._offline_renderer(chart.to_dict())["text/html"]
    second = render._offline_renderer(chart.to_dict())["text/html"]
    assert "window.vegaEmbed=" in first and "window.vegaEmbed=" not in second


def test_every_chart_gets_the_house_config_and_keeps_its_own_settings():
    """#28 item 6: on the full elo_misalignment page the legend cut "greatest_single_thing_person_concept" to
    "greatest_single_thing_person_co…" and the x axis drew "0.000.05" (its end labels flush into their
    neighbours)."""
    import json
    import re

    from rmbook.report.charts.render import house_config, render_html

    spec = {"mark": "point", "config": {"legend": {"orient": "bottom"}, "axis": {"labelFlush": True}}}
    drawn = json.loads(re.search(r"var spec = (\{.*?\});\n", render_html(spec)).group(1))
    assert drawn["config"]["legend"] == {"labelLimit": 0, "orient": "bottom"}
    assert drawn["config"]["axis"] == {"labelOverlap": "greedy", "labelFlush": True}  # the chart's own choice wins
    assert house_config({"mark": "point"})["config"]["axis"]["labelFlush"] is False
    assert "config" not in spec or spec["config"]["legend"] == {"orient": "bottom"}  # the caller's spec is not changed
