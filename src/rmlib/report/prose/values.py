"""What the implicit-rewards chapter still takes from the value chapters' prose: the design prompts a table holds and
one bullet per word-contrast test. The value chapters themselves (Big Two, MFD2) render their sentences from
``templates/value_profiles.md.j2``; these two functions go when the implicit-rewards chapter moves to a template."""
from __future__ import annotations

from typing import Sequence

import pandas as pd

from rmlib.data import design_prompts
from rmlib.stats import require_columns

__all__ = ["describe_prompt_subset", "contrast_lines"]


def describe_prompt_subset(prompt_keys: Sequence[str]) -> str:
    """'4 of the 54 prompts (adjectives best, greatest | worst, bad; superlative ever; phrasing one)'."""
    p = design_prompts(prompt_keys)
    uniq = lambda col: ", ".join(dict.fromkeys(p[col]))  # noqa: E731
    pos, neg = (", ".join(dict.fromkeys(p.loc[p["valence"] == v, "adjective"])) for v in ("positive", "negative"))
    return (f"{len(p)} of the 54 prompts (adjectives {pos} | {neg}; superlative {uniq('superlative')}; "
            f"phrasing {uniq('phrasing')})")


def contrast_lines(tests: pd.DataFrame, a: str, b: str) -> list[str]:
    """One markdown bullet per row of :func:`word_contrast` output: which group ranks higher, with g, CI and FDR p."""
    require_columns(tests, ["model", "reward_kind", "valence", "mean_a", "mean_b", "hedges_g", "g_ci_low",
                            "g_ci_high", "p_fdr", "reject"])
    lines = []
    for r in tests.itertuples():
        higher = a if r.mean_a < r.mean_b else b
        lines.append(f"- {r.model} ({r.reward_kind}), {r.valence} prompts: {higher} words rank higher "
                     f"(mean rank {r.mean_a:.1f} vs {r.mean_b:.1f}; g = {r.hedges_g:.2f} "
                     f"[{r.g_ci_low:.2f}, {r.g_ci_high:.2f}]; FDR p = {r.p_fdr:.3g}"
                     f"{', significant' if r.reject else ''}).")
    return lines
