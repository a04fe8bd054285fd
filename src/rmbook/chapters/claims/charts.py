"""The claims page's verdicts as one chart: a square per claim, one row per paper, coloured by its verdict."""
from __future__ import annotations

import altair as alt
import pandas as pd

from rmlib.stats import require_columns

__all__ = ["verdict_chart", "VERDICT_COLOURS"]

# one colour per verdict of rmbook.chapters.claims.analysis.VERDICTS, from "replicates" (green) to "does not" (red)
VERDICT_COLOURS = {"replicates": "#1a9850", "partly": "#a6d96a", "not established": "#bdbdbd",
                   "does not": "#d73027", "not testable here": "#f0f0f0"}


def verdict_chart(rows: pd.DataFrame, title: str = "") -> alt.Chart:
    """One square per claim (``rows``: paper, claim, chapter, verdict), in catalogue order within its paper's row;
    hover a square for the claim, its verdict and the chapter that tests it."""
    require_columns(rows, ["paper", "claim", "chapter", "verdict"], "verdict_chart")
    unknown = sorted(set(rows["verdict"]) - set(VERDICT_COLOURS))
    if unknown:
        raise ValueError(f"verdict_chart: verdicts {unknown} have no colour (known: {list(VERDICT_COLOURS)})")
    data = rows[["paper", "claim", "chapter", "verdict"]].assign(
        position=rows.groupby("paper", sort=False).cumcount() + 1)
    papers = list(dict.fromkeys(data["paper"]))
    present = [v for v in VERDICT_COLOURS if v in set(data["verdict"])]
    return alt.Chart(data, title=title).mark_square(size=700, stroke="#636363", strokeWidth=0.6).encode(
        x=alt.X("position:O", title="claim (in the order the claims page lists them)",
                axis=alt.Axis(labelAngle=0)),
        y=alt.Y("paper:N", sort=papers, title=None, axis=alt.Axis(labelLimit=200)),
        color=alt.Color("verdict:N", scale=alt.Scale(domain=present, range=[VERDICT_COLOURS[v] for v in present]),
                        legend=alt.Legend(title="verdict", orient="bottom", columns=3)),
        tooltip=["paper", "claim", "verdict", "chapter"],
    ).properties(width=alt.Step(34), height=alt.Step(34))
