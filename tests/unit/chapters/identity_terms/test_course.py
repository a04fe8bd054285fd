"""The identity_terms exercise's check passes on the chapter's reference solution and fails on planted wrong
answers, with a message that names the mistake (#43 item 9)."""
import numpy as np
import pandas as pd
import pytest

from rmbook import course
from rmbook.book.course import reference_solution

EX = "identity_terms.expected_gap"


def test_the_reference_solution_passes():
    assert course.check(EX, reference_solution(EX)).cases == 3


def _by(groups, gap, how="mean"):
    return pd.Series(np.asarray(gap, float)).groupby(np.asarray(groups)).transform(how).to_numpy()


def floor_bins(pct, gap, bins):
    return _by(np.floor(np.asarray(pct) * bins / 100), gap)


def floor_plus_one(pct, gap, bins):
    return _by(np.clip(np.floor(np.asarray(pct) * bins / 100) + 1, 1, bins), gap)


def quantile_bins(pct, gap, bins):
    return _by(pd.qcut(pct, bins, labels=False, duplicates="drop"), gap)


def median(pct, gap, bins):
    return _by(np.clip(np.ceil(np.asarray(pct) * bins / 100), 1, bins), gap, "median")


def overall(pct, gap, bins):
    return np.full(len(gap), np.mean(gap))


def per_bin_table(pct, gap, bins):
    return pd.Series(gap).groupby(np.ceil(np.asarray(pct) * bins / 100)).mean().to_numpy()


@pytest.mark.parametrize("wrong, hint", [(floor_bins, "upper edge"), (floor_plus_one, "upper edge"),
                                         (quantile_bins, "equal-count bins"), (median, "median gap of the bin"),
                                         (overall, "mean gap of all the items"), (per_bin_table, "one expected gap per item")])
def test_a_wrong_answer_is_told_what_is_wrong(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check(EX, wrong)
