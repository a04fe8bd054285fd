"""The chapter's one chart: the agency − communion gap each layer wrote, with its interval over words, one line per
model; base LMs (implicit: logits) and RMs (explicit: scores) in two panels, each on its own scale."""
from __future__ import annotations

import altair as alt
import pandas as pd

__all__ = ["gap_by_layer_chart"]


def gap_by_layer_chart(layers: pd.DataFrame) -> alt.FacetChart:
    """``layers``: model, kind, layer, gap, ci_low, ci_high
    (:func:`rmbook.chapters.reward_lens.analysis.gap_by_layer`)."""
    base = alt.Chart().encode(x=alt.X("layer:Q", title="layer (-1: the embedding)"),
                              color=alt.Color("model:N", title=None))
    band = base.mark_area(opacity=0.2).encode(y=alt.Y("ci_low:Q", title="agency − communion gap written"),
                                              y2="ci_high:Q")
    line = base.mark_line(point=True).encode(y="gap:Q", tooltip=["model", "layer", "gap", "ci_low", "ci_high"])
    return (band + line).properties(width=560, height=220).facet(
        row=alt.Row("kind:N", title=None), data=layers).resolve_scale(y="independent")
