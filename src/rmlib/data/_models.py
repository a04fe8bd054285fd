"""Metadata for the 10 reward models of both papers, keyed by HF id.

Kept here so the data layer does not depend on model-loading code; a test checks it agrees with
src/rmlib/registry.yaml when that file is present.
"""
from __future__ import annotations

import pandas as pd

# hf_id: (nickname, family, size_b, developer)
PAPER_RMS: dict[str, tuple[str, str, float, str]] = {
    "nicolinho/QRM-Gemma-2-27B": ("N-Gem-27B", "Gemma", 27, "nicolinho"),
    "Skywork/Skywork-Reward-Gemma-2-27B-v0.2": ("S-Gem-27B-v0.2", "Gemma", 27, "Skywork"),
    "Skywork/Skywork-Reward-Gemma-2-27B": ("S-Gem-27B", "Gemma", 27, "Skywork"),
    "Skywork/Skywork-Reward-Llama-3.1-8B-v0.2": ("S-Lla-8B-v0.2", "Llama", 8, "Skywork"),
    "nicolinho/QRM-Llama3.1-8B": ("N-Lla-8B", "Llama", 8, "nicolinho"),
    "LxzGordon/URM-LLaMa-3.1-8B": ("L-Lla-8B", "Llama", 8, "LxzGordon"),
    "Ray2333/GRM-Llama3-8B-rewardmodel-ft": ("R-Lla-8B", "Llama", 8, "Ray2333"),
    "Ray2333/GRM-Llama3.2-3B-rewardmodel-ft": ("R-Lla-3B", "Llama", 3, "Ray2333"),
    "RLHFlow/ArmoRM-Llama3-8B-v0.1": ("F-Lla-8B-v0.1", "Llama", 8, "RLHFlow"),
    "Ray2333/GRM-gemma2-2B-rewardmodel-ft": ("R-Gem-2B", "Gemma", 2, "Ray2333"),
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
