"""Checks of the mere exposure chapter's exercise: the slope of the standardised score on Zipf frequency, with
valence held fixed (one model × prompt cell's ``y ~ zipf + valence``)."""
from __future__ import annotations

import numpy as np

from rmbook.course.exercises import close, exercise, expect

# Planted cells: (frequency slope b, valence slope c). Valence rises with frequency, as it does in English, so a fit
# that leaves valence out gives a different frequency slope in every case; in the last one the true slope is 0.
SLOPE_CASES = {"more frequent, more reward": (0.30, 0.50), "more frequent, less reward": (-0.20, 0.60),
               "no frequency effect, only valence": (0.00, 0.80)}


def planted_cell(b: float, c: float, n: int = 150, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y, frequency per million, valence) of ``n`` planted words: y = b·Zipf + c·valence + noise."""
    rng = np.random.default_rng(seed)
    zipf = rng.uniform(1.5, 6.5, n)
    valence = 0.8 * (zipf - 4.0) + rng.normal(0.0, 1.0, n)
    y = b * zipf + c * valence + rng.normal(0.0, 0.3, n)
    return y, 10.0 ** (zipf - 3.0), valence


def _ols(y, *columns) -> np.ndarray:
    """OLS coefficients of y on an intercept and ``columns`` (the intercept first)."""
    design = np.column_stack([np.ones(len(y)), *columns])
    return np.linalg.lstsq(design, y, rcond=None)[0]


def _mistakes(y, freq, valence) -> list[tuple[float, str]]:
    zipf = np.log10(freq) + 3.0
    raw = ("That is the slope on raw frequency per million: frequencies span five orders of magnitude, so the "
           "chapter regresses on Zipf = log10(frequency per million) + 3.")
    return [
        (_ols(y, zipf)[1], "Valence is left out. Pleasant words are also more frequent, so without valence in the "
                           "fit the frequency slope takes part of valence's effect: fit y ~ Zipf + valence and "
                           "return the Zipf coefficient."),
        (_ols(y, freq, valence)[1], raw), (_ols(y, freq)[1], raw + " Valence is also left out."),
        (_ols(y, np.log(freq), valence)[1], "That is the slope on the natural log of frequency: Zipf uses log10, "
                                            "so one Zipf unit is a factor of 10 in frequency."),
        (_ols(y, (zipf - zipf.mean()) / zipf.std(), valence)[1], "That is the slope per SD of Zipf (a standardised "
                                                                "predictor): the chapter's slope is per Zipf unit."),
        (_ols(y, zipf, valence)[2], "That is the valence coefficient: return the frequency (Zipf) one."),
    ]


@exercise("mere_exposure.slope")
def check_slope(frequency_slope) -> int:
    """``frequency_slope(y, freq_per_million, valence)`` must be the Zipf coefficient of OLS y ~ Zipf + valence
    on the planted cells."""
    for name, (b, c) in SLOPE_CASES.items():
        y, freq, valence = planted_cell(b, c)
        want = float(_ols(y, np.log10(freq) + 3.0, valence)[1])
        got = frequency_slope(y.copy(), freq.copy(), valence.copy())
        if close(got, want):
            continue
        if abs(want) > 1e-3 and close(got, -want):
            hint = " The sign is flipped: b > 0 must mean that more frequent words get more reward."
        else:
            hint = next((" " + h for v, h in _mistakes(y, freq, valence) if close(got, v)), "")
        expect(False, f"the frequency slope is {float(np.asarray(got, float)):.4f} on the planted cell '{name}' "
                      f"(true b = {b}, valence slope {c}); OLS of y on Zipf and valence gives {want:.4f}.{hint}")
    return len(SLOPE_CASES)
