"""Checks of the identity_terms chapter's exercise: the gap an item is expected to get from its human rank alone, the
mean gap of the items in the same equal-width bin of human percentiles (what the chapter subtracts before it calls an
identity item's gap a bias)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.chapters.identity_terms.analysis import expected_gaps
from rmbook.course.exercises import close, exercise, expect

# (human percentiles, gaps, bins): percentiles on bin edges (10, 20, 100), bins of very different sizes (an
# equal-count split differs), a skewed bin (its median differs from its mean) and a bin with one item.
CASES = {
    "four bins, items on the edges": ([10.0, 20.0, 25.0, 40.0, 55.0, 70.0, 75.0, 90.0, 100.0, 5.0, 3.0, 2.0],
                                      [12.0, 8.0, 6.0, 3.0, -1.0, -4.0, -5.0, -9.0, -15.0, 20.0, 15.0, 18.0], 4),
    "ten bins, crowded at the bottom": ([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 9.5, 45.0, 99.0],
                                        [30.0, 1.0, 2.0, 0.0, 3.0, 25.0, 4.0, 2.0, -7.0, -40.0], 10),
    "two bins, a skewed one": ([30.0, 35.0, 40.0, 45.0, 60.0, 80.0],
                               [1.0, 2.0, 3.0, 50.0, -10.0, -20.0], 2),
}


def reference(human_pct, gap, bins: int) -> np.ndarray:
    """Each item's expected gap by the chapter's code (rmbook.chapters.identity_terms.analysis.expected_gaps, one
    RM)."""
    items = pd.DataFrame({"item": range(len(gap)), "label": "RM", "human_pct": human_pct, "gap": gap})
    table = expected_gaps(items, bins)
    binned = np.clip(np.ceil(np.asarray(human_pct, float) * bins / 100.0), 1, bins).astype(int)
    return table.set_index("human_bin")["expected_gap"].reindex(binned).to_numpy()


def _by(groups, gap, how="mean") -> np.ndarray:
    return pd.Series(gap).groupby(np.asarray(groups)).transform(how).to_numpy()


def _variants(pct: np.ndarray, gap: np.ndarray, bins: int) -> list[tuple[np.ndarray, str]]:
    ceil_bins = np.clip(np.ceil(pct * bins / 100.0), 1, bins)
    return [
        (_by(np.floor(pct * bins / 100.0), gap),
         "An item on a bin's upper edge went into the next bin: a percentile in (0, 100] goes into bin "
         "ceil(p · bins / 100), so 100 is in the top bin and 10 (of 10 bins) in the first."),
        (_by(np.clip(np.floor(pct * bins / 100.0) + 1, 1, bins), gap),
         "An item on a bin's upper edge went into the next bin: use ceil(p · bins / 100), clipped to 1..bins, "
         "not floor(...) + 1."),
        (_by(pd.qcut(pct, bins, labels=False, duplicates="drop"), gap),
         "Those are equal-count bins (quantiles): the chapter's bins have equal width, 100/bins percentile points "
         "each, whatever number of items falls in them."),
        (_by(ceil_bins, gap, "median"), "That is the median gap of the bin: the expected gap is the bin's mean."),
        (np.full(len(gap), gap.mean()), "That is the mean gap of all the items: take the mean within the item's bin."),
    ]


@exercise("identity_terms.expected_gap")
def check_expected_gap(expected_gap) -> int:
    """``expected_gap(human_pct, gap, bins)``: per item, the mean gap of the items whose human percentile falls in
    the same one of ``bins`` equal-width bins of (0, 100]."""
    for name, (pct, gaps, bins) in CASES.items():
        pct_a, gap_a = np.asarray(pct, float), np.asarray(gaps, float)
        want = reference(pct_a, gap_a, bins)
        got = expected_gap(pct_a.copy(), gap_a.copy(), bins)
        expect(np.shape(got) == want.shape, f"return one expected gap per item (shape {want.shape}), got shape "
                                            f"{np.shape(got)}: map each bin's mean back onto its items")
        got = np.asarray(got, dtype=float)
        if close(got, want):
            continue
        hint = next((h for alt, h in _variants(pct_a, gap_a, bins) if close(got, alt)), "")
        expect(False, f"on {name} (human percentiles {pct}, gaps {gaps}, {bins} bins) you give "
                      f"{np.round(got, 3).tolist()}; the expected gaps are {np.round(want, 3).tolist()}. "
                      f"{hint}".rstrip())
    return len(CASES)
