"""The mere exposure exercise's check passes on the chapter's reference solution and fails on planted wrong answers,
with a message that names the mistake."""
import numpy as np
import pytest

from rmbook import course
from rmbook.book.course import reference_solution


def test_the_reference_solution_passes():
    assert course.check("mere_exposure.slope", reference_solution("mere_exposure.slope")).cases == 3


def _ols(y, *columns):
    return np.linalg.lstsq(np.column_stack([np.ones(len(y)), *columns]), y, rcond=None)[0]


def no_covariate(y, f, v):
    return np.polyfit(np.log10(f) + 3, y, 1)[0]


def raw_frequency(y, f, v):
    return _ols(y, f, v)[1]


def natural_log(y, f, v):
    return _ols(y, np.log(f), v)[1]


def flipped(y, f, v):
    return -_ols(y, np.log10(f) + 3, v)[1]


def valence_coefficient(y, f, v):
    return _ols(y, np.log10(f) + 3, v)[2]


def standardised_zipf(y, f, v):
    z = np.log10(f)
    return _ols(y, (z - z.mean()) / z.std(), v)[1]


@pytest.mark.parametrize("wrong, hint", [(no_covariate, "Valence is left out"), (raw_frequency, "raw frequency"),
                                         (natural_log, "natural log"), (flipped, "sign is flipped"),
                                         (valence_coefficient, "valence coefficient"),
                                         (standardised_zipf, "per SD of Zipf")])
def test_slope_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("mere_exposure.slope", wrong)


def test_leaving_valence_out_changes_the_slope_of_every_planted_cell():
    from rmbook.chapters.mere_exposure.course import SLOPE_CASES, planted_cell

    for b, c in SLOPE_CASES.values():
        y, f, v = planted_cell(b, c)
        assert abs(no_covariate(y, f, v) - _ols(y, np.log10(f) + 3, v)[1]) > 0.2
