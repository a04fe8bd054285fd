"""Charts for the value-profile chapters (Big Two, MFD2, implicit rewards), built on rmlib.charts conventions."""
from __future__ import annotations

import altair as alt
import pandas as pd

from rmlib.charts import _require, _tooltip


def median_rank_chart(model_medians: pd.DataFrame, *, category: str = "category", valence: str = "valence",
                      family: str = "family", title: str = "", width: int = 160, height: int = 260) -> alt.FacetChart:
    """Median within-prompt rank per family × category × valence, one dot per model and a tick at the family mean.

    Input: one row per model × category × valence (``family_analysis(...)['model_medians']``). The y axis is
    reversed so that a category ranked higher (rank 1 = top) sits higher.
    """
    _require(model_medians, "model", family, category, valence, "median_rank", what="median_rank_chart")
    d = model_medians[["model", family, category, valence, "median_rank"]].copy()
    if "nickname" in model_medians.columns:
        d["nickname"] = model_medians["nickname"]
    tips = [c for c in ("model", "nickname", family, category, valence, "median_rank") if c in d.columns]
    y = alt.Y("median_rank:Q", title="median rank (1 = top)", scale=alt.Scale(reverse=True, zero=False))
    xoff = alt.XOffset(f"{family}:N")
    bars = alt.Chart().mark_tick(thickness=3, size=26, opacity=0.8).encode(
        x=alt.X(f"{category}:N", title=None, axis=alt.Axis(labelAngle=-40)), xOffset=xoff,
        y=alt.Y("mean(median_rank):Q", title="median rank (1 = top)", scale=alt.Scale(reverse=True, zero=False)),
        color=alt.Color(f"{family}:N"))
    dots = alt.Chart().mark_point(filled=True, size=55, opacity=0.9).encode(
        x=alt.X(f"{category}:N"), xOffset=xoff, y=y, color=alt.Color(f"{family}:N"),
        shape=alt.Shape(f"{family}:N"), tooltip=_tooltip(d, tips))
    return (alt.layer(bars, dots, data=d).properties(width=width, height=height)
            .facet(column=alt.Column(f"{valence}:N", title="prompt valence"), title=title))


def effect_chart(effects: pd.DataFrame, panels: list[str], *, estimate: str = "estimate", lo: str = "ci_low",
                 hi: str = "ci_high", title: str = "", width: int = 320) -> alt.LayerChart:
    """Dot-and-whisker effect sizes (e.g. Hedges' g) with CIs, one row per panel, dashed line at zero."""
    _require(effects, estimate, lo, hi, *panels, what="effect_chart")
    d = effects.copy()
    d["panel"] = d[panels].astype(str).agg(" · ".join, axis=1)
    d = d[["panel", estimate, lo, hi, *panels]]
    y = alt.Y("panel:N", title=None, sort=None, axis=alt.Axis(labelLimit=300))
    rule = alt.Chart(d).mark_rule().encode(x=alt.X(f"{lo}:Q", title=estimate), x2=f"{hi}:Q", y=y)
    dots = alt.Chart(d).mark_circle(size=60, opacity=1).encode(x=f"{estimate}:Q", y=y,
                                                                 tooltip=_tooltip(d, list(d.columns)))
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(strokeDash=[4, 3], color="gray").encode(x="x:Q")
    return alt.layer(zero, rule, dots, title=title).properties(width=width)
