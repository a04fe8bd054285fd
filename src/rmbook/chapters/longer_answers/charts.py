"""Charts of the longer_answers chapter (:mod:`rmbook.chapters.longer_answers.analysis`): how a GCG search
(``rmlib.engine.gcg``) converges, restart by restart. Kept apart from the analysis so the numbers are computed and
tested without altair."""
from __future__ import annotations

import altair as alt
import pandas as pd

from rmlib.stats import require_columns

__all__ = ["convergence_chart"]


def convergence_chart(runs: pd.DataFrame, model: str, prompt_key: str, *, title: str = "") -> alt.FacetChart:
    """Best reward so far against the GCG step, one line per restart, one panel per direction x length."""
    require_columns(runs, ["model", "prompt_key", "direction", "length", "restart", "step", "reward", "text"],
                    "convergence_chart")
    d = runs[(runs["model"] == model) & (runs["prompt_key"] == prompt_key)]
    d = d[["direction", "length", "restart", "step", "reward", "text"]].assign(length=lambda x: "n = " + x["length"].astype(str))
    return alt.Chart(d).mark_line(point=False, opacity=0.8).encode(
        x=alt.X("step:Q", title="GCG step"), y=alt.Y("reward:Q", title="best reward so far", scale=alt.Scale(zero=False)),
        color=alt.Color("restart:N"), tooltip=["restart:N", "step:Q", alt.Tooltip("reward:Q", format=".3f"), "text:N"],
    ).properties(width=150, height=110).facet(
        row=alt.Row("direction:N", title=None), column=alt.Column("length:N", title=None, sort=None),
    ).resolve_scale(y="independent").properties(title=title or f"{model}: convergence ({prompt_key})")
