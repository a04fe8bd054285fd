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


def test_the_crossed_bootstrap_resamples_words_as_well_as_prompts():
    """#66 item 2: a table whose prompts agree but whose words vary has a wide interval over words, which a bootstrap
    over prompts alone (every prompt the same mean) reduces to a point."""
    from rmlib.stats.resampling import crossed_bootstrap, percentile_interval

    rng = np.random.default_rng(1)
    words = rng.normal(0, 10, size=200)
    table = np.tile(words, (9, 1)) + rng.normal(0, 0.01, size=(9, 200))  # 9 prompts that score the words alike
    draws = crossed_bootstrap(table, lambda s, _: s.mean(axis=(1, 2)), n_resamples=499)
    lo, hi = percentile_interval(draws)
    assert hi - lo > 2 * 10 / np.sqrt(200)  # about ±1.96 se of a mean of 200 words of sd 10
    rows_only = table.mean(axis=1)
    assert np.ptp(rows_only) < 0.01  # what resampling prompts alone would see


def test_crossed_draws_keep_each_group_and_pair_with_the_same_seed():
    from rmlib.stats.resampling import MDC_Z, crossed_bootstrap, paired_difference

    table = np.arange(24, dtype=float).reshape(3, 8)
    groups = ["a"] * 3 + ["b"] * 5
    seen = []

    def stat(sample, labels):
        seen.append(list(labels))
        return sample[:, :, np.asarray(labels) == "a"].max(axis=(1, 2))

    draws = crossed_bootstrap(table, stat, groups=groups, n_resamples=50, seed=3)
    assert seen == [groups] and draws.max() <= 18  # an "a" column never draws a "b" word (columns 0-2: at most 18)
    again = crossed_bootstrap(table + 5, stat, groups=groups, n_resamples=50, seed=3)
    paired = paired_difference(draws, again)
    assert paired["ci_low"] == paired["ci_high"] == 5 and paired["se"] == 0 and paired["mdc"] == 0
    other = crossed_bootstrap(table + 5, stat, groups=groups, n_resamples=50, seed=4)
    assert paired_difference(draws, other)["se"] > 0 and MDC_Z == 2.80  # another seed: not paired


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
