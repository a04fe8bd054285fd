"""rmlib.report.charts.render: the vega bundle inline only outside the book."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.report import charts
from rmlib.report.charts import render


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
