"""rmbook.report.charts.basic: histograms embed bins, not rows; estimates must sit inside their intervals."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.report import charts


def test_histogram_embeds_bins_not_rows():
    df = pd.DataFrame({"score": np.random.default_rng(1).normal(size=50_000)})  # > MAX_ROWS
    spec = charts.histogram(df, "score", bins=30).to_dict()
    values = next(iter(spec["datasets"].values()))
    assert len(values) == 30
    assert sum(v["y"] for v in values) == 50_000


def test_slope_ci_rejects_estimates_outside_their_interval():
    df = pd.DataFrame({"m": ["a", "b"], "est": [0.5, 0.1], "lo": [0.2, 0.2], "hi": [0.8, 0.3]})
    with pytest.raises(ValueError, match="outside"):
        charts.slope_ci(df, "m", "est", "lo", "hi")
    ok = df.assign(lo=[0.2, 0.0])
    spec = charts.slope_ci(ok, "m", "est", "lo", "hi").to_dict()
    assert len(spec["layer"]) == 3  # reference line, CI rules, dots


def _groups(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"score": rng.normal(size=200 * n), "model": np.repeat([f"rm{i}" for i in range(n)], 200)})


def test_a_histogram_by_group_keeps_each_shape_instead_of_stacking():
    # #28 item 6: the stacked histograms of 10 RMs (about, method) hid each distribution's shape
    few = charts.histogram(_groups(3), "score", by="model", bins=20).to_dict()
    assert few["mark"]["type"] == "line" and few["encoding"]["y"]["stack"] is None
    many = charts.histogram(_groups(10), "score", by="model", bins=20).to_dict()
    assert many["facet"]["row"]["field"] == "group" and many["spec"]["encoding"]["y"]["stack"] is None
    values = next(iter(many["datasets"].values()))
    assert len(values) == 10 * 20 and sum(v["y"] for v in values) == 2000  # still bins, not rows


def test_slope_ci_titles_its_axis_in_words_when_asked():
    import pandas as pd

    df = pd.DataFrame({"label": ["a", "b"], "est": [1.0, -1.0], "lo": [0.5, -2.0], "hi": [2.0, 0.0]})
    plain = charts.slope_ci(df, "label", "est", "lo", "hi").to_dict()
    named = charts.slope_ci(df, "label", "est", "lo", "hi", x_title="mean rank difference").to_dict()
    assert plain["layer"][1]["encoding"]["x"]["title"] == "est"  # the column name, as before
    assert named["layer"][1]["encoding"]["x"]["title"] == "mean rank difference"
