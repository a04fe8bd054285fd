"""The "Where the value lives" page's results, built from the analysis' frames (NaN, where an interval could not be
drawn, becomes None)."""
from __future__ import annotations

import math

import pandas as pd

from rmbook.chapters.reward_lens.types import (Agreement, LayerGap, ModelLens, PatchCheck, RewardLensResults, RMSplit,
                                               Summary)

__all__ = ["Agreement", "LayerGap", "ModelLens", "PatchCheck", "RewardLensResults", "RMSplit", "split_row", "patch_row", "agreement_rows", "Summary", "summary",
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


def _side(value, low, high) -> int:
    return 0 if low is None or high is None else (1 if low > 0 else -1 if high < 0 else 0)


def summary(splits: list[RMSplit], checks: list[PatchCheck]) -> Summary | None:
    """The RMs together: how many have a gap, in how many each part carries it, the attribution's agreement with
    patching (None without RMs)."""
    if not splits:
        return None
    sign = [1 if s.total > 0 else -1 for s in splits]
    rhos = [c.rho for c in checks if c.rho is not None]
    refuted = [len([b for b in c.disagree if b != "embed"]) for c in checks]
    same = [s.frozen_identity for s in splits if s.frozen_identity is not None]
    return Summary(
        n_rms=len(splits), n_gap_beyond_zero=sum(_side(s.total, s.total_low, s.total_high) != 0 for s in splits),
        n_tuned_with_gap=sum(_side(s.tuned, s.tuned_low, s.tuned_high) == g for s, g in zip(splits, sign)),
        n_frozen_with_gap=sum(_side(s.frozen, s.frozen_low, s.frozen_high) == g for s, g in zip(splits, sign)),
        rho_min=min(rhos) if rhos else None, rho_max=max(rhos) if rhos else None,
        n_rho_above_zero=sum(c.rho_low is not None and c.rho_low > 0 for c in checks),
        disagree_min=min(refuted) if refuted else 0, disagree_max=max(refuted) if refuted else 0,
        n_identity=len(same), identity_max=max(same) if same else None)


def chapter_results(prompts, models: list[dict], layers: pd.DataFrame, splits: list[RMSplit],
                    agreement: list[Agreement], patching: list[PatchCheck], missing: dict) -> RewardLensResults:
    return RewardLensResults(agreement=agreement, summary=summary(splits, patching),
        prompts=list(prompts), models=[ModelLens(**m) for m in models],
        layers=[LayerGap(**{k: (_num(v) if k in ("ci_low", "ci_high") else v) for k, v in r.items()})
                for r in layers.to_dict("records")],
        splits=splits, patching=patching, missing=dict(missing))
