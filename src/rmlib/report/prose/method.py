"""Sentences for the method chapter: a sweep's optimal and pessimal tokens, the round-trip audit, and the id-exact vs
paper-mode demo, each from what :mod:`rmlib.analysis.method` returned."""
from __future__ import annotations

import pandas as pd

from rmlib.report.tables import show_whitespace

__all__ = ["extremes_markdown", "roundtrip_markdown", "modes_markdown"]


def extremes_markdown(n_tokens: int, label: str, ext: dict, top_k: int) -> str:
    """The optimal and pessimal token of one sweep (``ext``: :func:`rmlib.analysis.method.extremes`); for a
    log-prob reward also how much next-token probability they hold."""
    best, worst = ext["best"], ext["worst"]
    note = ("" if ext["p_best"] is None else
            f" Because this reward is a log-probability, exp(reward) is a probability: the optimal token alone gets "
            f"{ext['p_best']:.1%} of the next-token mass and the top {top_k} together {ext['top_mass']:.1%}.")
    return (f"Over {n_tokens:,} tokens, the optimal token for **{label}** is "
            f"`{show_whitespace(best.text)}` (reward {best.reward:.2f}) and the pessimal one "
            f"`{show_whitespace(worst.text)}` ({worst.reward:.2f}); ␣ marks a leading space.{note}")


def roundtrip_markdown(audit: pd.DataFrame) -> str:
    """How many ids do not survive decode->encode (range over models, the worst one named) and the BOS counts of the
    two modes (``audit``: :func:`rmlib.analysis.method.roundtrip_table`)."""
    worst = audit.loc[audit["share changed"].idxmax()]
    span = (f"{audit['share changed'].iloc[0]:.1%}" if len(audit) == 1 else
            f"Between {audit['share changed'].min():.1%} and {audit['share changed'].max():.1%}")
    return (f"{span} of the ids checked do not survive the round trip ({worst['model']}: "
            f"{worst['ids changed by decode→encode']:,} of {worst['ids checked']:,}). Paper mode starts the sequence "
            f"with {', '.join(str(x) for x in audit['leading BOS, paper mode'])} BOS token(s) "
            f"(id-exact: {', '.join(str(x) for x in audit['leading BOS, id-exact'])}).")


def modes_markdown(model: str, both: pd.DataFrame, diff: dict) -> str:
    """What the untrained-head demo shows (``both``: :func:`rmlib.analysis.method.compare_modes`, ``diff``: its
    :func:`mode_differences`): mechanics only, never a finding about values."""
    return (
        f"Mechanics only ({model} with an untrained head): on these {len(both)} ids, {diff['share_diff']:.0%} get a "
        f"different score in paper mode (|difference| > {diff['tol']:.3g}, 1% of the scores' SD, "
        f"so that bfloat16 rounding between batch layouts does not count), "
        f"{int((~both.round_trip_ok).sum())} of them because the id itself changes in the round trip; paper mode fed "
        f"{int(both.n_bos.median())} leading BOS token(s). The two modes' scores correlate at r = {diff['r_modes']:.2f}. "
        "With a trained RM the same mechanics move real rewards, which is why rmlib defaults to id-exact scoring and "
        "keeps paper mode only to reproduce published numbers.")
