"""Charts of the blinding chapter: disparity per condition, and what knowing a descriptor does to P(yes).

Each takes a frame from :func:`rmbook.chapters.blinding.disparity` and checks its columns; the analysis stays
testable without altair.
"""
from __future__ import annotations

import altair as alt
import pandas as pd

from rmbook.chapters.blinding.prompts import CONDITION_LABELS, CONDITIONS

__all__ = ["disparity_chart", "effects_chart"]

_ORDER = [CONDITION_LABELS[c] for c in CONDITIONS]
_COLOURS = alt.Scale(domain=_ORDER, range=["#e45756", "#f58518", "#54a24b", "#4c78a8"])


def _require(df: pd.DataFrame, cols, what: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: columns {missing} not in the frame (has {list(df.columns)})")
    if df.empty:
        raise ValueError(f"{what}: nothing to draw")


def disparity_chart(by_axis: pd.DataFrame, measure: str = "gap", *, axis: str = "all axes", title: str = "",
                    width: int = 180) -> alt.FacetChart:
    """One panel per model: the disparity ``measure`` (gap or spread) in each condition, with its interval over
    templates (a dot without a bar: too few templates for an interval). ``by_axis`` is disparity()['by_axis']."""
    if measure not in ("gap", "spread"):
        raise ValueError(f"measure must be 'gap' or 'spread', not {measure!r}")
    _require(by_axis, ["model", "condition", "axis", measure, f"{measure}_ci_low", f"{measure}_ci_high"],
             "disparity_chart")
    d = by_axis[by_axis["axis"] == axis].copy()
    d["condition_label"] = d["condition"].map(CONDITION_LABELS)
    d = d[["model", "condition_label", measure, f"{measure}_ci_low", f"{measure}_ci_high", "mean_p_yes"]]
    x = alt.X("condition_label:N", sort=_ORDER, title=None, axis=alt.Axis(labelAngle=-30, labelLimit=160))
    color = alt.Color("condition_label:N", scale=_COLOURS, legend=None)
    ytitle = {"gap": "largest gap in P(yes) between descriptors", "spread": "SD of descriptors' P(yes)"}[measure]
    bars = alt.Chart().mark_rule(strokeWidth=2).encode(x=x, y=alt.Y(f"{measure}_ci_low:Q", title=ytitle),
                                                       y2=f"{measure}_ci_high:Q", color=color)
    dots = alt.Chart().mark_circle(size=80, opacity=1).encode(
        x=x, y=f"{measure}:Q", color=color,
        tooltip=["model:N", "condition_label:N", alt.Tooltip(f"{measure}:Q", format=".3f"),
                 alt.Tooltip(f"{measure}_ci_low:Q", format=".3f"), alt.Tooltip(f"{measure}_ci_high:Q", format=".3f"),
                 alt.Tooltip("mean_p_yes:Q", format=".3f", title="mean P(yes)")])
    return alt.layer(bars, dots, data=d).properties(width=width, height=200).facet(
        column=alt.Column("model:N", title=None), title=title or f"Disparity across descriptors ({axis})")


def effects_chart(effects: pd.DataFrame, *, title: str = "", width: int = 220) -> alt.FacetChart:
    """What knowing the descriptor does: mean P(yes) minus the blinded replica's, per descriptor (rows, grouped by
    axis) and condition (colour), one panel per model, with intervals over templates."""
    _require(effects, ["model", "condition", "axis", "descriptor", "effect", "ci_low", "ci_high"], "effects_chart")
    d = effects[effects["condition"] != "blinded"].copy()
    d["condition_label"] = d["condition"].map(CONDITION_LABELS)
    d["row"] = d["axis"] + " · " + d["descriptor"]
    d["ci_low"] = d["ci_low"].fillna(d["effect"])
    d["ci_high"] = d["ci_high"].fillna(d["effect"])
    order = list(dict.fromkeys(d.sort_values(["axis", "descriptor"])["row"]))
    d = d[["model", "row", "condition_label", "effect", "ci_low", "ci_high"]]
    y = alt.Y("row:N", sort=order, title=None, axis=alt.Axis(labelLimit=240))
    yoff = alt.YOffset("condition_label:N", sort=_ORDER)
    color = alt.Color("condition_label:N", scale=_COLOURS, title="condition")
    zero = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(0))
    bars = alt.Chart().mark_rule().encode(x=alt.X("ci_low:Q", title="P(yes) − blinded P(yes)"), x2="ci_high:Q",
                                          y=y, yOffset=yoff, color=color)
    dots = alt.Chart().mark_circle(size=36, opacity=1).encode(
        x="effect:Q", y=y, yOffset=yoff, color=color,
        tooltip=["model:N", "row:N", "condition_label:N", alt.Tooltip("effect:Q", format=".3f"),
                 alt.Tooltip("ci_low:Q", format=".3f"), alt.Tooltip("ci_high:Q", format=".3f")])
    return alt.layer(zero, bars, dots, data=d).properties(width=width).facet(
        column=alt.Column("model:N", title=None),
        title=title or "What knowing the descriptor does to P(yes), per descriptor")
