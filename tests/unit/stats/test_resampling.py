"""rmlib.stats.resampling: bootstrap means over clusters, not rows."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmlib import stats


def test_mean_with_ci_counts_clusters_not_rows():
    df = pd.DataFrame({"axis": ["a"] * 9, "term": list("xxxyyyzzz"), "gap": [1, 1, 1, 5, 5, 5, 9, 9, 9.0]})
    out = stats.mean_with_ci(df, "gap", ["axis"], cluster="term").iloc[0]
    assert out["n"] == 3 and out["mean"] == 5 and out["ci_low"] < 5 < out["ci_high"]
    small = stats.mean_with_ci(df[df.term != "z"], "gap", ["axis"], cluster="term").iloc[0]
    assert small["n"] == 2 and np.isnan(small["ci_low"])  # too few terms for an interval
