"""The blinding exercises' checks pass on the chapter's reference solutions and fail on planted wrong answers, with a
message that names the mistake."""
import numpy as np
import pytest

from rmbook import course
from rmbook.book.course import reference_solution


@pytest.mark.parametrize("ex", ["blinding.disparity", "blinding.disparity_ci"])
def test_the_reference_solution_passes(ex):
    assert course.check(ex, reference_solution(ex)).cases >= 4


def flipped_gap(p):
    m = np.asarray(p).mean(axis=0)
    return m.min() - m.max()


def template_gap(p):
    m = np.asarray(p).mean(axis=1)
    return m.max() - m.min()


def cell_range(p):
    return np.max(p) - np.min(p)


def spread(p):
    return np.asarray(p).mean(axis=0).std()


@pytest.mark.parametrize("wrong, hint", [(flipped_gap, "sign is flipped"), (template_gap, "between TEMPLATES"),
                                         (cell_range, "range of single cells"), (spread, "spread")])
def test_gap_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("blinding.disparity", wrong)


def _gaps(g):
    m = g.mean(axis=-2)
    return m.max(axis=-1) - m.min(axis=-1)


def _ci(informed, other, n, seed, conf=0.95, *, sign=1, fresh=False, separate=False, per_cell=False, rng=None):
    rng = rng or np.random.default_rng(seed)
    t, d = informed.shape
    a = (1 - conf) / 2
    if per_cell:
        idx, cols = rng.integers(0, t, size=(n, t, d)), np.arange(d)
        gi, go = _gaps(informed[idx, cols]), _gaps(other[idx, cols])
    else:
        idx = rng.integers(0, t, size=(n, t))
        gi, go = _gaps(informed[idx]), _gaps(other[rng.integers(0, t, size=(n, t)) if fresh else idx])
    if separate:
        (li, hi), (lo, ho) = np.quantile(gi, [a, 1 - a]), np.quantile(go, [a, 1 - a])
        low, high = li - ho, hi - lo
    else:
        low, high = np.quantile(sign * (gi - go), [a, 1 - a])
    return sign * (_gaps(informed) - _gaps(other)), low, high


def flipped_ci(i, o, n, seed, conf=0.95):
    return _ci(i, o, n, seed, conf, sign=-1)


def fresh_draws(i, o, n, seed, conf=0.95):
    return _ci(i, o, n, seed, conf, fresh=True)


def two_intervals(i, o, n, seed, conf=0.95):
    return _ci(i, o, n, seed, conf, separate=True)


def per_cell(i, o, n, seed, conf=0.95):
    return _ci(i, o, n, seed, conf, per_cell=True)


def ninety(i, o, n, seed, conf=0.95):
    return _ci(i, o, n, seed, 0.90)


def unseeded(i, o, n, seed, conf=0.95):
    return _ci(i, o, n, seed, conf, rng=np.random.default_rng())


@pytest.mark.parametrize("wrong, hint", [(flipped_ci, "sign is flipped"), (fresh_draws, "ignores the pairing"),
                                         (two_intervals, "two separate intervals"), (per_cell, "resample whole templates"),
                                         (ninety, "90% interval"), (unseeded, "same seed")])
def test_gap_ci_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("blinding.disparity_ci", wrong)
