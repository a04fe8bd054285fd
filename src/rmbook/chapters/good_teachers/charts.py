"""Charts of the good_teachers chapter (:mod:`rmbook.chapters.good_teachers.analysis`): the gain in E[r*] along the
ascent, and the predictors of teaching speed. Kept apart from the analysis so the numbers are computed and tested
without altair.
"""
from __future__ import annotations

import altair as alt
import pandas as pd

from rmlib.stats import require_columns

__all__ = ["teaching_trajectory_chart", "predictor_scatter"]


def teaching_trajectory_chart(trajectories: pd.DataFrame, *, value: str = "gain", color: str = "model",
                     facet: str = "pi0", mark_step: int | None = None, title: str = "",
                     width: int = 260, height: int = 220) -> alt.Chart:
    """Lines of ``value`` over steps, one per ``color``, one panel per ``facet``; a rule at ``mark_step``."""
    require_columns(trajectories, ["step", value, color, facet], "teaching_trajectory_chart")
    d = trajectories[["step", value, color, facet]]
    sel = alt.selection_point(fields=[color], bind="legend")
    base = alt.Chart()
    lines = base.mark_line().encode(
        x=alt.X("step:Q", title="step"), y=alt.Y(f"{value}:Q", title=value.replace("_", " ")),
        color=alt.Color(f"{color}:N", legend=alt.Legend(title=color, labelLimit=260)),
        opacity=alt.condition(sel, alt.value(1.0), alt.value(0.15)),
        tooltip=[alt.Tooltip(f"{color}:N"), "step:Q", alt.Tooltip(f"{value}:Q", format=".3f")],
    ).add_params(sel)
    layers = [lines]
    if mark_step is not None:
        layers.append(base.mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(mark_step)))
    return alt.layer(*layers, data=d).properties(width=width, height=height).facet(
        column=alt.Column(f"{facet}:N", title=None, sort=list(dict.fromkeys(d[facet])))).resolve_scale(
        y="independent").properties(title=title)


def predictor_scatter(table: pd.DataFrame, predictors: list[str], outcome: str, *, color: str = "pi0",
                      label: str = "model", title: str = "", width: int = 240, height: int = 220) -> alt.Chart:
    """One scatter per predictor against ``outcome``, one point per row (an RM under one π_0)."""
    require_columns(table, [*predictors, outcome, color, label], "predictor_scatter")
    d = table[list(dict.fromkeys([*predictors, outcome, color, label]))]
    panels = []
    for p in predictors:
        panels.append(alt.Chart(d).mark_circle(size=60, opacity=0.8).encode(
            x=alt.X(f"{p}:Q", scale=alt.Scale(zero=False), title=p.replace("_", " ")),
            y=alt.Y(f"{outcome}:Q", scale=alt.Scale(zero=False), title=outcome.replace("_", " ")),
            color=alt.Color(f"{color}:N"),
            tooltip=[alt.Tooltip(f"{label}:N"), alt.Tooltip(f"{color}:N"), alt.Tooltip(f"{p}:Q", format=".3f"),
                     alt.Tooltip(f"{outcome}:Q", format=".3f")],
        ).properties(width=width, height=height))
    return alt.hconcat(*panels, title=title)
