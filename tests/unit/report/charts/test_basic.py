"""rmlib.report.charts.basic: histograms embed bins, not rows; estimates must sit inside their intervals."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib.report import charts


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
