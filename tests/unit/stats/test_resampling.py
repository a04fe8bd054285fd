"""rmlib.stats.resampling: bootstrap means over clusters, not rows."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmlib import stats


def test_mean_with_ci_counts_clusters_not_rows():
    df = pd.DataFrame({"axis": ["a"] * 9, "term": list("xxxyyyzzz"), "gap": [1, 1, 1, 5, 5, 5, 9, 9, 9.0]})
    out = stats.mean_with_ci(df, "gap", ["axis"], cluster="term").iloc[0]
    assert out["n"] == 3 and out["mean"] == 5 and out["ci_low"] < 5 < out["ci_high"]
    small = stats.mean_with_ci(df[df.term != "z"], "gap", ["axis"], cluster="term").iloc[0]
    assert small["n"] == 2 and np.isnan(small["ci_low"])  # too few terms for an interval


def test_the_interval_of_a_mean_over_ten_units_holds_its_level():
    """#63 item 7: a percentile bootstrap over ten RMs under-covers (it resamples the ten values themselves); the
    interval of a mean is Student t by default. 400 planted samples of 10 normal values around 0: the t interval
    covers 0 in about 95% of them, the percentile bootstrap in 88.5%."""
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"sample": np.repeat(np.arange(400), 10), "v": rng.normal(0, 1, 4000)})
    covers = lambda out: float(((out["ci_low"] < 0) & (out["ci_high"] > 0)).mean())  # noqa: E731
    assert covers(stats.mean_with_ci(df, "v", ["sample"])) >= 0.93
    assert covers(stats.mean_with_ci(df, "v", ["sample"], interval="bootstrap")) < 0.9  # what the book used
    lo, hi = stats.mean_ci([1.0, 2.0, 3.0, 4.0])
    assert (lo, hi) == pytest.approx((2.5 - 3.182446 * np.std([1, 2, 3, 4], ddof=1) / 2,
                                      2.5 + 3.182446 * np.std([1, 2, 3, 4], ddof=1) / 2))
    with pytest.raises(ValueError, match="interval must be one of"):
        stats.mean_ci([1.0, 2.0, 3.0], interval="BCa")


def test_the_one_bootstrap_interval_is_the_one_the_book_used():
    """One percentile bootstrap (rmlib.stats.bootstrap_ci) serves every caller: the same call, the same numbers."""
    from scipy import stats as sps

    v = np.random.default_rng(0).normal(size=50)
    old = sps.bootstrap((v,), np.mean, n_resamples=999, method="percentile",
                        rng=np.random.default_rng(7)).confidence_interval
    assert stats.bootstrap_ci((v,), np.mean, seed=7) == (old.low, old.high)
