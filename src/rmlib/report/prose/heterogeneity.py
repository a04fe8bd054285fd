"""The heterogeneity chapter's sentences: what each run compares, how alike the models are, and what explains it."""
from __future__ import annotations

import numpy as np

from rmlib.analysis.heterogeneity import SimilarityRun, tau_extremes

__all__ = ["run_markdown", "agreement_markdown", "mds_markdown", "rsa_markdown"]


def run_markdown(run: SimilarityRun) -> str:
    """'**published.** 5 models on 400 EloEverything items ...; whether any is an implicit reward'."""
    n_lm = run.n_implicit
    return (f"**{run.name}.** {len(run.models)} models on {run.what}. "
            + (f"{n_lm} of them are language models whose reward is the log-probability of the answer: "
               "an **implicit** reward, not a trained RM." if n_lm else "All are reward models."))


def agreement_markdown(run: SimilarityRun) -> str:
    """The range of Kendall τ between models against the shuffled floor, and top- vs bottom-weighted agreement."""
    ex = tau_extremes(run)
    tau, (lo_a, lo_b), (hi_a, hi_b), floor = ex["tau"], ex["least_alike"], ex["most_alike"], run.floor
    top, bottom = np.median(ex["rbo_top"]), np.median(ex["rbo_bottom"])
    gap = top - bottom
    return (f"*{run.name}*: Kendall τ between models ranges from {tau.min():.2f} ({lo_a} vs {lo_b}) to "
            f"{tau.max():.2f} ({hi_a} vs {hi_b}), median {np.median(tau):.2f}; shuffled scores give τ between "
            f"{floor.loc[0, 'shuffled 2.5%']:.3f} and {floor.loc[0, 'shuffled 97.5%']:.3f}. "
            f"RBO from the top has median {top:.2f} and from the bottom {bottom:.2f} "
            f"(shuffled floor {floor.loc[2, 'shuffled mean']:.2f}): a median gap of {gap:+.2f}, so the models agree "
            f"{'more' if gap > 0 else 'less'} about their favourite items than about their least favourite ones "
            f"(top-weighted agreement).")


def mds_markdown(run: SimilarityRun) -> str:
    ex = run.explained
    return f"*{run.name}*: the two axes carry {ex.iloc[0]:.0%} and {ex.iloc[1]:.0%} of the eigenvalue mass."


def rsa_markdown(run: SimilarityRun, designs: dict, skipped: list[str]) -> str:
    """Which design best matches the τ matrix, or why RSA was skipped."""
    if len(run.models) < 4:
        return f"*{run.name}*: RSA needs at least 4 models; this run has {len(run.models)}, so it is skipped."
    if not designs:
        return f"*{run.name}*: no usable design matrix for these models: {', '.join(skipped)}."
    best = run.rsa.loc[run.rsa["r"].idxmax()]
    return (f"*{run.name}*: the design that best matches the τ matrix is **{best.design}** (Mantel r = {best.r:.2f}, "
            f"permutation p = {best.p:.2g}, {int(best.n_models)} models)."
            + (f" Skipped: {', '.join(skipped)}." if skipped else ""))
