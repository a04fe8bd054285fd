"""Checks of the moral_foundations chapter's exercise: Hedges' g between two families' model-level median ranks, the
effect size the chapter's forest plot shows (rmlib.stats.effects.hedges_g)."""
from __future__ import annotations

import numpy as np
from scipy import special

from rmbook.course.exercises import close, exercise, expect
from rmlib.stats.effects import cohen_d, hedges_g

# Two families' model-level median ranks: the chapter's 4 vs 6, small families (where the correction matters most),
# unequal sizes with unequal spreads (pooling weights them), and a case where the second family ranks higher.
CASES = {
    "4 Gemma vs 6 Llama models": ([131.5, 128.0, 140.2, 135.0], [120.0, 126.5, 118.2, 131.0, 122.4, 125.0]),
    "2 vs 3 models": ([10.0, 14.0], [20.0, 21.0, 26.0]),
    "unequal spreads, 3 vs 7": ([50.0, 80.0, 110.0], [60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0]),
    "the second family higher": ([5.0, 6.0, 7.0, 5.5, 6.5], [2.0, 3.0, 2.5, 3.5, 1.5]),
}


def _j_approx(df: int) -> float:
    return 1 - 3 / (4 * df - 1)


def _variants(a: np.ndarray, b: np.ndarray) -> list[tuple[float, str]]:
    df = len(a) + len(b) - 2
    j = float(np.exp(special.gammaln(df / 2) - special.gammaln((df - 1) / 2)) / np.sqrt(df / 2))
    diff = a.mean() - b.mean()
    pooled0 = np.sqrt((len(a) * a.var() + len(b) * b.var()) / (len(a) + len(b)))
    return [
        (-float(hedges_g(a, b)), "The sign is flipped: g is the first family minus the second (a − b), so a "
                                 "negative g means the first family's median rank is lower (it ranks the words higher)."),
        (float(cohen_d(a, b)), "That is Cohen's d: multiply it by the small-sample correction J(df) = Γ(df/2) / "
                               "(√(df/2) Γ((df − 1)/2)), df = n_a + n_b − 2, which matters with a handful of models."),
        (float(cohen_d(a, b)) * _j_approx(df), "That uses the approximation J ≈ 1 − 3/(4·df − 1); the chapter uses the "
                                               "exact J(df) = Γ(df/2) / (√(df/2) Γ((df − 1)/2))."),
        (j * diff / pooled0, "The pooled SD must use the sample variances (ddof=1), weighted by n − 1 and divided by "
                             "n_a + n_b − 2."),
        (j * diff / np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2),
         "That averages the two variances equally: pool them weighted by their degrees of freedom, "
         "((n_a − 1)s_a² + (n_b − 1)s_b²) / (n_a + n_b − 2)."),
        (j * diff / np.concatenate([a, b]).std(ddof=1),
         "That divides by the SD of both families together, which grows with the very difference being measured: "
         "pool the within-family variances."),
    ]


@exercise("moral_foundations.hedges_g")
def check_hedges_g(family_hedges_g) -> int:
    """``family_hedges_g(a, b)``: (mean a − mean b) / pooled SD (ddof=1), times the exact small-sample correction."""
    for name, (a, b) in CASES.items():
        a_, b_ = np.asarray(a, float), np.asarray(b, float)
        want = float(hedges_g(a_, b_))
        got = family_hedges_g(a_.copy(), b_.copy())
        expect(np.ndim(got) == 0, f"return one number (g), got {got!r}")
        got = float(got)
        if close(got, want):
            continue
        hint = next((h for v, h in _variants(a_, b_) if close(got, v)), "")
        expect(False, f"on {name} (a={a}, b={b}) your g is {got:.4f}; Hedges' g is {want:.4f}. {hint}".rstrip())
    return len(CASES)
