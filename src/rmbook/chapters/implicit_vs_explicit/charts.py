"""Charts of the implicit_vs_explicit chapter (:mod:`rmbook.chapters.implicit_vs_explicit.analysis`): accuracy per RM
and evaluation set with CIs, and the DPO run's log-ratios to the reference and margin along training (likelihood
displacement)."""
from __future__ import annotations

import altair as alt
import pandas as pd

from rmlib.stats import require_columns

__all__ = ["accuracy_by_set_chart", "displacement_chart"]


def accuracy_by_set_chart(acc: pd.DataFrame, *, title: str = "", width: int = 360) -> alt.Chart:
    """One row per evaluation set, a dot (accuracy) and whisker (CI) per RM; a dashed line at chance (0.5)."""
    require_columns(acc, ["rm", "eval_set", "accuracy", "ci_low", "ci_high"], "accuracy_by_set_chart")
    d = acc[["rm", "eval_set", "accuracy", "ci_low", "ci_high", *(["n"] if "n" in acc else [])]]
    order = list(dict.fromkeys(d["eval_set"]))
    y = alt.Y("eval_set:N", sort=order, title=None, axis=alt.Axis(labelLimit=260))
    off = alt.YOffset("rm:N")
    color = alt.Color("rm:N", title="reward model")
    rule = alt.Chart(d).mark_rule().encode(x=alt.X("ci_low:Q", title="pairwise accuracy (95% CI)",
                                                   scale=alt.Scale(domain=[0, 1])), x2="ci_high:Q",
                                           y=y, yOffset=off, color=color)
    dots = alt.Chart(d).mark_circle(size=70, opacity=1).encode(
        x="accuracy:Q", y=y, yOffset=off, color=color,
        tooltip=["rm:N", "eval_set:N", alt.Tooltip("accuracy:Q", format=".3f"), alt.Tooltip("ci_low:Q", format=".3f"),
                 alt.Tooltip("ci_high:Q", format=".3f")])
    chance = alt.Chart(pd.DataFrame({"x": [0.5]})).mark_rule(strokeDash=[4, 3], color="gray").encode(x="x:Q")
    return alt.layer(chance, rule, dots, title=title).properties(width=width)


def displacement_chart(traj: pd.DataFrame, *, title: str = "", width: int = 300, height: int = 220) -> alt.Chart:
    """Left: the policy's log-ratio to the reference (log πθ − log πref, nats, batch means) of the chosen and rejected
    completions per step, with a rule at 0 (the reference); right: the implicit reward margin. Log-ratios, not raw
    log-probs, because each step's batch holds other pairs (see
    rmbook.chapters.implicit_vs_explicit.analysis.displacement)."""
    require_columns(traj, ["step", "logratio_chosen", "logratio_rejected", "margin"], "displacement_chart")
    long = traj.melt("step", ["logratio_chosen", "logratio_rejected"], var_name="completion",
                     value_name="log_ratio")
    long["completion"] = long["completion"].str.removeprefix("logratio_")
    zero = alt.Chart(pd.DataFrame({"y": [0.0]})).mark_rule(strokeDash=[4, 3], color="gray").encode(y="y:Q")
    ratios = alt.Chart(long).mark_line().encode(
        x=alt.X("step:Q"), y=alt.Y("log_ratio:Q", title="log πθ(y|x) − log πref(y|x), batch mean (nats)"),
        color=alt.Color("completion:N", scale=alt.Scale(domain=["chosen", "rejected"])),
        tooltip=["step:Q", "completion:N", alt.Tooltip("log_ratio:Q", format=".2f")])
    margin = alt.Chart(traj[["step", "margin"]]).mark_line(color="black").encode(
        x=alt.X("step:Q"), y=alt.Y("margin:Q", title="implicit reward margin β·Δlog-ratio"),
        tooltip=["step:Q", alt.Tooltip("margin:Q", format=".3f")]).properties(width=width, height=height)
    return alt.hconcat(alt.layer(zero, ratios).properties(width=width, height=height), margin, title=title)
