"""The elo_misalignment exercise's check passes on the chapter's reference solution and fails on planted wrong
answers, with a message that names the mistake (#43 item 9: every chapter of the book's findings has an exercise)."""
import numpy as np
import pandas as pd
import pytest

from rmbook import course
from rmbook.book.course import reference_solution

EX = "elo_misalignment.consensus"


def test_the_reference_solution_passes():
    assert course.check(EX, reference_solution(EX)).cases == 5


def _diff(human, rewards, *, ascending=False, agg="median", method="average", sign=1):
    h = human.rank(ascending=ascending, method=method)
    return sign * rewards.rank(ascending=ascending, method=method).rsub(h, axis=0).agg(agg, axis=1)


def ascending(human, rewards):
    return _diff(human, rewards, ascending=True)


def flipped(human, rewards):
    return _diff(human, rewards, sign=-1)


def mean(human, rewards):
    return _diff(human, rewards, agg="mean")


def min_ties(human, rewards):
    return _diff(human, rewards, method="min")


def pooled(human, rewards):
    ranks = rewards.stack().rank(ascending=False).unstack()[rewards.columns]
    return ranks.rsub(human.rank(ascending=False), axis=0).median(axis=1)


def bare_array(human, rewards):
    return np.sort(_diff(human, rewards).to_numpy())  # loses the items' order


@pytest.mark.parametrize("wrong, hint", [(ascending, "sign is flipped.*HIGHEST score"), (flipped, "sign is flipped"),
                                         (mean, "the mean over models"), (min_ties, "'min' ranks"),
                                         (pooled, "ranked all the models' rewards together"),
                                         (bare_array, "you give")])
def test_a_wrong_answer_is_told_what_is_wrong(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check(EX, wrong)


def test_an_answer_that_drops_the_items_is_refused():
    with pytest.raises(course.CheckFailed, match="follow the items|a Series indexed"):
        course.check(EX, lambda human, rewards: pd.Series(_diff(human, rewards).to_numpy()))
