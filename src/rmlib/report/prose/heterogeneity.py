"""The heterogeneity chapter's sentences: what each run compares, how alike the models are, and what explains it."""
from __future__ import annotations

import numpy as np

from rmlib.analysis.heterogeneity import BASE_DESIGN, SIZE_DESIGN, SimilarityRun, tau_extremes

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


def _best_design_sentence(run: SimilarityRun, alpha: float) -> str:
    """Which design matches the τ matrix: the one with the largest Mantel r, if that r is positive and its
    permutation p below ``alpha``. A null or negative r matches nothing, so then the sentence says no design does."""
    best = run.rsa.loc[run.rsa["r"].idxmax()]
    stat = f"Mantel r = {best.r:.2f}, permutation p = {best.p:.2g}, {int(best.n_models)} models"
    if best.r <= 0:
        return (f"*{run.name}*: **no design matches** the τ matrix: every Mantel r is at or below 0 (the largest, "
                f"{best.design}: {stat}).")
    if best.p >= alpha:
        return (f"*{run.name}*: **no design matches** the τ matrix beyond chance: the closest is {best.design} "
                f"({stat}; p ≥ {alpha:g}).")
    return f"*{run.name}*: the design that best matches the τ matrix is **{best.design}** ({stat})."


def _partial_sentence(run: SimilarityRun) -> str:
    """Base family with size held fixed (and size with base held fixed), from the partial Mantel tests: how much of
    the base design's match is the size design's, named as the confound."""
    p = run.partial
    if not len(p):
        return ""
    pair = p[(p["design"] == BASE_DESIGN) & (p["given"] == SIZE_DESIGN)]
    back = p[(p["design"] == SIZE_DESIGN) & (p["given"] == BASE_DESIGN)]
    if not len(pair):
        return ""
    b = pair.iloc[0]
    if b.r != b.r:   # NaN: size fixes base completely
        return (f" Size and base family are confounded here (the designs correlate {b.r_given_design:+.2f}), so "
                "the base design cannot be tested with size held fixed.")
    overlap = (f"Base family and size overlap: the two designs correlate {b.r_given_design:+.2f} over model pairs "
               "(models that share a base family tend to be of similar size)" if b.r_given_design > 0 else
               f"The two designs correlate {b.r_given_design:+.2f} over model pairs")
    text = (f" {overlap}, so each is also tested with the other held fixed (partial Mantel test, the τ matrix's "
            f"labels permuted): {BASE_DESIGN} has r = {b.r_design:.2f} alone and a partial r = {b.r:.2f} "
            f"(p = {b.p:.3g}) with size held fixed")
    if len(back):
        s = back.iloc[0]
        text += f"; {SIZE_DESIGN} has a partial r = {s.r:.2f} (p = {s.p:.3g}) with base family held fixed"
    return text + "."


def rsa_markdown(run: SimilarityRun, designs: dict, skipped: list[str], alpha: float = 0.05) -> str:
    """Which design matches the τ matrix (none, if the best Mantel r is not positive or not beyond chance at
    ``alpha``), how much of base family's match survives with size held fixed, or why RSA was skipped."""
    if len(run.models) < 4:
        return f"*{run.name}*: RSA needs at least 4 models; this run has {len(run.models)}, so it is skipped."
    if not designs:
        return f"*{run.name}*: no usable design matrix for these models: {', '.join(skipped)}."
    return (_best_design_sentence(run, alpha) + _partial_sentence(run)
            + (f" Skipped: {', '.join(skipped)}." if skipped else ""))
