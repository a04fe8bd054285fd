"""The "Where the value lives" page's results, built from the analysis' frames (NaN, where an interval could not be
drawn, becomes None)."""
from __future__ import annotations

import math

import pandas as pd

from rmbook.chapters.reward_lens.types import Agreement, LayerGap, ModelLens, PatchCheck, RewardLensResults, RMSplit

__all__ = ["Agreement", "LayerGap", "ModelLens", "PatchCheck", "RewardLensResults", "RMSplit", "split_row", "patch_row", "agreement_rows",
           "chapter_results"]


def _num(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def split_row(rm: str, base: str | None, seed: int | None, split: dict, identity: float | None = None) -> RMSplit:
    """One RM's :func:`rmbook.chapters.reward_lens.analysis.frozen_split` (``identity``: its
    :func:`rmbook.chapters.reward_lens.analysis.frozen_identity`)."""
    keys = ("total", "total_low", "total_high", "frozen", "frozen_low", "frozen_high", "tuned", "tuned_low",
            "tuned_high", "frozen_share")
    return RMSplit(rm=rm, base=base, seed=seed, boundary=split["boundary"], n_tuned=split["n_tuned"],
                   frozen_identity=_num(identity),
                   **{k: _num(split[k]) if k.endswith(("low", "high", "share")) else float(split[k]) for k in keys})


def patch_row(rm: str, table: pd.DataFrame, summary: dict) -> PatchCheck:
    """One RM's :func:`rmbook.chapters.reward_lens.analysis.patch_check`."""
    rho = summary.get("spearman") or {}
    return PatchCheck(rm=rm, n_pairs=int(summary.get("n_pairs", 0)), gap=_num(summary.get("gap")),
                      rho=_num(rho.get("rho")), rho_low=_num(rho.get("ci_low")), rho_high=_num(rho.get("ci_high")),
                      disagree=list(summary.get("disagree", [])), n_blocks=len(table))


def agreement_rows(frame: pd.DataFrame) -> list[Agreement]:
    """:func:`rmbook.chapters.reward_lens.analysis.agreement`'s rows."""
    return [Agreement(**{k: (_num(v) if k.startswith("share") else v) for k, v in r.items()})
            for r in frame.to_dict("records")]


def chapter_results(prompts, models: list[dict], layers: pd.DataFrame, splits: list[RMSplit],
                    agreement: list[Agreement], patching: list[PatchCheck], missing: dict) -> RewardLensResults:
    return RewardLensResults(agreement=agreement,
        prompts=list(prompts), models=[ModelLens(**m) for m in models],
        layers=[LayerGap(**{k: (_num(v) if k in ("ci_low", "ci_high") else v) for k, v in r.items()})
                for r in layers.to_dict("records")],
        splits=splits, patching=patching, missing=dict(missing))
