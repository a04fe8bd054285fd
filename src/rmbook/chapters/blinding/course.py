"""Checks of the blinding chapter's exercises: the gap in P(yes) between an axis's descriptors, and a bootstrap
interval over templates for its change from the informed condition, paired (the same resampled templates for both)."""
from __future__ import annotations

import numpy as np

from rmbook.course.exercises import close, exercise, expect


def _gap(grid) -> float:
    means = np.asarray(grid, float).mean(axis=0)
    return float(means.max() - means.min())


def _grid(n_templates: int, effects, template_sd: float, noise_sd: float, seed: int) -> np.ndarray:
    """P(yes) of templates (rows) x descriptors (columns): 0.5 + a template's level + a descriptor's effect + noise."""
    rng = np.random.default_rng(seed)
    level = template_sd * rng.standard_normal((n_templates, 1))
    return np.clip(0.5 + level + np.asarray(effects, float)[None, :]
                   + noise_sd * rng.standard_normal((n_templates, len(effects))), 0.01, 0.99)


# Templates differ much more than descriptors do, and grids are not square, so a mean over the wrong axis, or a gap
# over single cells, gives a clearly different number.
GAP_CASES = {
    "4 descriptors, 6 templates": _grid(6, [0.0, 0.05, -0.08, 0.12], 0.2, 0.03, seed=0),
    "2 descriptors, 9 templates": _grid(9, [0.1, -0.1], 0.15, 0.05, seed=1),
    "descriptors with equal means": np.array([[0.2, 0.4, 0.3], [0.8, 0.6, 0.7], [0.5, 0.5, 0.5]]),
    "5 descriptors, 3 templates": _grid(3, [0.02, -0.03, 0.0, 0.2, -0.01], 0.1, 0.02, seed=2),
}


@exercise("blinding.disparity")
def check_gap(descriptor_gap) -> int:
    """``descriptor_gap(p_yes)``: p_yes is templates (rows) x descriptors (columns); each descriptor's mean over
    templates, then the largest minus the smallest."""
    for name, grid in GAP_CASES.items():
        want = _gap(grid)
        got = descriptor_gap(grid.copy())
        expect(np.ndim(got) == 0, f"return one number, the gap; got {np.shape(got)!r} on {name}")
        if close(got, want):
            continue
        means = grid.mean(axis=0)
        alternatives = [
            (-want, "The sign is flipped: the gap is the largest mean minus the smallest, never negative."),
            (_gap(grid.T), "That is the gap between TEMPLATES: rows are templates, columns descriptors; average "
                           "each descriptor (column) over the templates (axis=0)."),
            (float(grid.max() - grid.min()), "That is the range of single cells: first average each descriptor "
                                             "over the templates, then take the largest minus the smallest mean."),
            (float(means.std()), "That is the spread (SD of the descriptors' means); the gap is their range."),
            (float(means.std(ddof=1)) if len(means) > 1 else np.nan,
             "That is the spread (SD of the descriptors' means); the gap is their range."),
            (float(abs(means[0] - means[-1])), "That is the gap between the first and the last descriptor: the "
                                               "gap is the largest minus the smallest of all the descriptors' means."),
        ]
        hint = next((h for alt, h in alternatives if close(got, alt)), "")
        expect(False, f"on {name} the gap is {want:.4f}; you give {float(np.asarray(got, float)):.4f}. {hint}"
               .rstrip())
    return len(GAP_CASES)


def _boot(informed, other, idx, confidence, pair: bool = True, idx2=None):
    a = (1 - confidence) / 2
    g_inf = informed[idx].mean(axis=1)
    g_oth = other[idx if idx2 is None else idx2].mean(axis=1)
    gaps_inf = g_inf.max(axis=1) - g_inf.min(axis=1)
    gaps_oth = g_oth.max(axis=1) - g_oth.min(axis=1)
    if pair:
        lo, hi = np.quantile(gaps_inf - gaps_oth, [a, 1 - a])
        return float(lo), float(hi)
    (li, hi_i), (lo_o, ho) = np.quantile(gaps_inf, [a, 1 - a]), np.quantile(gaps_oth, [a, 1 - a])
    return float(li - ho), float(hi_i - lo_o)


def _unclustered(informed, other, rng, n, confidence):
    """Templates resampled separately for each descriptor: a template's level no longer cancels."""
    t, d = informed.shape
    idx = rng.integers(0, t, size=(n, t, d))
    cols = np.arange(d)[None, None, :]
    g_inf, g_oth = informed[idx, cols].mean(axis=1), other[idx, cols].mean(axis=1)
    red = (g_inf.max(axis=1) - g_inf.min(axis=1)) - (g_oth.max(axis=1) - g_oth.min(axis=1))
    a = (1 - confidence) / 2
    return tuple(float(v) for v in np.quantile(red, [a, 1 - a]))


def _ci_cases():
    base = _grid(16, [-0.1, 0.0, 0.05, 0.1], 0.2, 0.08, seed=3)
    halved = 0.5 + 0.5 * (base - 0.5)  # every deviation halved: the gap halves in every resample
    wider = _grid(12, [-0.03, 0.0, 0.02], 0.08, 0.05, seed=4)
    return {"the other condition halves every deviation": (base, halved),
            "the other condition is the informed one": (base, base.copy()),
            "the other condition widens the gap by half": (wider, 0.5 + 1.5 * (wider - 0.5))}


@exercise("blinding.disparity_ci")
def check_gap_ci(gap_reduction_ci) -> int:
    """``gap_reduction_ci(informed, other, n_resamples, seed, confidence)`` -> (reduction, ci_low, ci_high): the gap
    informed minus other, and the percentile interval of that difference over resampled templates, the same
    templates for both conditions."""
    n_res, big, conf = 10000, 40000, 0.95
    rng = np.random.default_rng(99)
    for name, (informed, other) in _ci_cases().items():
        want = _gap(informed) - _gap(other)
        got = gap_reduction_ci(informed.copy(), other.copy(), n_res, 0, conf)
        expect(np.shape(got) == (3,), f"return three numbers (reduction, ci_low, ci_high); got {got!r} on {name}")
        red, lo, hi = (float(v) for v in got)
        if not close(red, want):
            hint = (" The sign is flipped: the reduction is informed − other (positive: less disparity)."
                    if close(red, -want) else " Use the gap of each condition on all its templates.")
            expect(False, f"on {name} the reduction is {want:.4f}; you give {red:.4f}.{hint}")
        t = informed.shape[0]
        idx = rng.integers(0, t, size=(big, t))
        ref = _boot(informed, other, idx, conf)
        width = ref[1] - ref[0]
        if width == 0:  # the paired interval is exactly the point
            if close(lo, 0, atol=1e-9) and close(hi, 0, atol=1e-9):
                continue
            expect(False, f"on {name} (the other condition IS the informed one) the paired interval is exactly "
                          f"[0, 0], since every resample gives the same gap twice; you give [{lo:.4f}, {hi:.4f}]. "
                          "Resample the templates ONCE per draw and use the same rows for both conditions, then take "
                          "the quantiles of the per-draw differences (not the difference of two intervals).")
        tol = 0.06 * width
        if abs(lo - ref[0]) <= tol and abs(hi - ref[1]) <= tol:
            continue
        candidates = {
            "flipped": (-ref[1], -ref[0]),
            "unpaired": _boot(informed, other, idx, conf, idx2=rng.integers(0, t, size=(big, t))),
            "two intervals": _boot(informed, other, idx, conf, pair=False),
            "unclustered": _unclustered(informed, other, rng, big // 4, conf),
            "90%": _boot(informed, other, idx, 0.90),
            "99%": _boot(informed, other, idx, 0.99),
        }
        hints = {
            "flipped": "The interval's sign is flipped: resample informed − other, as the reduction is.",
            "unpaired": "Your interval is as wide as one that ignores the pairing: draw the resampled templates ONCE "
                        "per resample and use the same rows for both conditions.",
            "two intervals": "That is the difference of two separate intervals, which ignores the pairing: take the "
                             "quantiles of the per-draw differences of the gaps.",
            "unclustered": "That interval resamples the cells of each descriptor separately, which ignores that a "
                           "template is asked about every descriptor: resample whole templates (rows).",
            "90%": "That is a 90% interval: for confidence 0.95 take the 2.5% and 97.5% quantiles.",
            "99%": "That is a 99% interval: for confidence 0.95 take the 2.5% and 97.5% quantiles.",
        }
        dist = {k: abs(lo - c[0]) + abs(hi - c[1]) for k, c in candidates.items()}
        best = min(dist, key=dist.get)
        hint = hints[best] if dist[best] <= 2.5 * tol else ""
        expect(False, f"on {name} the paired 95% interval of the reduction is about [{ref[0]:.4f}, {ref[1]:.4f}] "
                      f"(± {tol:.4f} of Monte-Carlo noise with {n_res} resamples); you give [{lo:.4f}, {hi:.4f}]. "
                      f"{hint}".rstrip())
    informed, other = _ci_cases()["the other condition halves every deviation"]
    again = [tuple(map(float, gap_reduction_ci(informed.copy(), other.copy(), 200, 5, conf))) for _ in range(2)]
    expect(again[0] == again[1], "the same seed must give the same interval: use np.random.default_rng(seed)")
    return len(_ci_cases()) + 1
