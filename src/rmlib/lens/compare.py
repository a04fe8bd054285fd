"""Each block's attribution beside its patching effect: do they rank the blocks alike, and where do they part?

reward-lens (arXiv 2604.26130) found that linear attribution does not predict patching effects in RMs (Spearman rho
-0.26 on Skywork, -0.03 on ArmoRM), so an attribution shown alone is not evidence. Here each block's mean direct
contribution to a pair's gap (clean minus corrupt, :mod:`rmlib.lens.attribution`) stands beside its mean patching
effect (:func:`rmlib.lens.patching.patch_blocks`), each with a bootstrap interval over pairs; Spearman's rho over
blocks carries the Bonett-Wright interval (:func:`rmlib.stats.spearman_ci`).

A block **disagrees** when its attribution lies outside its patching effect's interval *and* the two differ by more
than ``tolerance`` times the mean gap (so rounding and a one-pair interval never name a block). Its attribution is
then refuted: the direct path says one thing, the intervention another (a block that writes little into the reward
but changes what later blocks write, or one whose write later blocks undo).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmlib.lens.attribution import Decomposition
from rmlib.lens.blocks import LensError
from rmlib.stats import mean_with_ci, spearman_ci

__all__ = ["gap_by_component", "attribution_vs_patching"]


def gap_by_component(clean: Decomposition, corrupt: Decomposition, label_index: int = 0) -> pd.DataFrame:
    """pair, component, layer, kind, attribution: each block's direct contribution to each pair's gap (row ``b`` of
    ``clean`` paired with row ``b`` of ``corrupt``; readout row ``label_index``)."""
    if clean.parts.shape != corrupt.parts.shape:
        raise LensError(f"paired decompositions differ in shape: {clean.parts.shape} and {corrupt.parts.shape}")
    diff = clean.parts[:, :, label_index] - corrupt.parts[:, :, label_index]
    B, C = diff.shape
    return pd.DataFrame({"pair": np.repeat(np.arange(B), C), "component": np.tile(clean.components, B),
                         "layer": np.tile(clean.layers, B), "attribution": diff.reshape(-1)}).assign(
        kind=lambda d: d["component"].str.split(".").str[-1])


def attribution_vs_patching(attribution: pd.DataFrame, patching: pd.DataFrame, *, tolerance: float = 0.25,
                            confidence: float = 0.95, n_resamples: int = 999, seed: int = 0) -> tuple:
    """(table, summary). ``attribution``: pair, component, attribution (:func:`gap_by_component`); ``patching``:
    pair, component, effect (:func:`rmlib.lens.patching.patch_blocks`, one readout row). The table holds per block
    its mean attribution and patching effect with intervals over pairs and whether they ``disagree``; the summary
    holds Spearman's rho over blocks (rho, ci_low, ci_high, n), the mean gap and the blocks that disagree, named."""
    both = attribution.merge(patching[["pair", "component", "effect"]], on=["pair", "component"], how="inner")
    if both.empty:
        raise LensError("the attribution and the patching share no (pair, component)")
    order = list(dict.fromkeys(attribution["component"]))
    a = mean_with_ci(both, "attribution", ["component"], confidence=confidence, n_resamples=n_resamples, seed=seed)
    p = mean_with_ci(both, "effect", ["component"], confidence=confidence, n_resamples=n_resamples, seed=seed)
    table = a.merge(p, on=["component", "n"], suffixes=("_attribution", "_patching"))
    table = table.set_index("component").loc[[c for c in order if c in set(table["component"])]].reset_index()
    gap = float(patching.attrs["gap"][:, 0].mean()) if "gap" in patching.attrs else \
        float(both.groupby("pair")["attribution"].sum().mean())
    off = (table["mean_attribution"] - table["mean_patching"]).abs()
    outside = ~((table["mean_attribution"] >= table["ci_low_patching"])
                & (table["mean_attribution"] <= table["ci_high_patching"]))  # NaN interval: outside
    table["disagree"] = outside & (off > tolerance * abs(gap))
    summary = {"gap": gap, "n_pairs": int(both["pair"].nunique()), "tolerance": tolerance,
               "disagree": table.loc[table["disagree"], "component"].tolist()}
    if len(table) >= 4 and table["mean_attribution"].nunique() > 1 and table["mean_patching"].nunique() > 1:
        summary["spearman"] = spearman_ci(table["mean_attribution"], table["mean_patching"], confidence=confidence)
    else:
        summary["spearman"] = None
    return table, summary
