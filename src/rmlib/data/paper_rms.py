"""Metadata for the 10 reward models of both papers, keyed by HF id.

Read from rmlib's model registry (src/rmlib/registry.yaml, :mod:`rmlib.registry`, which loads no model), the one
place that describes models, so the data layer's family/size/developer columns cannot drift.
"""
from __future__ import annotations

import pandas as pd

from rmlib.registry import registry

# hf_id: (nickname, family, size_b, developer); family is the base family the papers group by (Gemma | Llama)
PAPER_RMS: dict[str, tuple[str, str, float, str]] = {
    s.id: (s.nickname, s.base, float(s.size_b), s.developer)
    for s in registry().values() if s.source == "hub" and s.kind == "rm"
}


def model_table() -> pd.DataFrame:
    """One row per paper RM: model (HF id), nickname, family (Gemma|Llama), size_b, developer."""
    return pd.DataFrame(
        [(m, *v) for m, v in PAPER_RMS.items()],
        columns=["model", "nickname", "family", "size_b", "developer"],
    ).astype({"size_b": float})


def model_from_filename(stem: str, prefix: str) -> str:
    """'big2_rewards_Ray2333_GRM-gemma2-2B-rewardmodel-ft' -> 'Ray2333/GRM-gemma2-2B-rewardmodel-ft'."""
    tail = stem[len(prefix):]
    for hf_id in PAPER_RMS:
        if hf_id.replace("/", "_") == tail:
            return hf_id
    raise ValueError(f"score file {stem!r} names no known paper RM (expected {prefix}<org>_<name>)")
