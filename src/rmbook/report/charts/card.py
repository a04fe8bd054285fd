"""A value card's chart: the model's agency − communion gap beside the ten paper RMs', one row per prompt valence."""
from __future__ import annotations

import altair as alt
import pandas as pd

__all__ = ["card_chart"]


def card_chart(card) -> alt.Chart:
    """One dot per paper RM (coloured by base family) and a diamond for the card's model, per valence; hover a mark
    for its name and gap (``card``: :class:`rmbook.analysis.card.ValueCard`)."""
    ref = pd.DataFrame([{"model": g.model, "valence": g.valence, "gap": g.gap,
                         "family": card.reference_families.get(g.model, "?") + "-based paper RM"}
                        for g in card.reference])
    own = pd.DataFrame([{"model": card.label, "valence": g.valence, "gap": g.gap, "family": "this model"}
                        for g in card.gaps])
    data = pd.concat([ref, own], ignore_index=True)
    families = sorted(ref["family"].unique()) + ["this model"]
    return alt.Chart(data, title=f"{card.label}: agency − communion gap in median rank, beside the paper RMs").mark_point(
        filled=True, size=120, opacity=0.85).encode(
        x=alt.X("gap:Q", title="agency − communion median rank (negative: agency words rank higher)"),
        y=alt.Y("valence:N", title="prompt valence"),
        color=alt.Color("family:N", scale=alt.Scale(domain=families), legend=alt.Legend(title=None, orient="bottom")),
        shape=alt.Shape("family:N", scale=alt.Scale(domain=families,
                                                    range=["circle"] * (len(families) - 1) + ["diamond"]),
                        legend=None),
        tooltip=["model", "family", "valence", alt.Tooltip("gap:Q", format=".1f")],
    ).properties(width=560, height=120)
