"""Charts of the framing and mere-exposure chapters: oriented slopes per model, words as a beeswarm, cell slopes."""
from __future__ import annotations

from typing import Sequence

import altair as alt
import numpy as np
import pandas as pd

from rmbook.analysis.choices import FRAMING_HALVES, SLOPE_CELLS
from rmbook.report.charts.basic import slope_ci
from rmlib.stats import require_columns

__all__ = ["framing_slopes_chart", "framing_halves_chart", "halves_by_source_chart", "swarm_offsets",
           "word_swarm_chart", "cell_strip_chart"]


def _slopes_long(contrast: pd.DataFrame, label: str = "model") -> pd.DataFrame:
    """The four slopes of :func:`rmbook.chapters.framing.analysis.framing_contrast` in long form: label, word_side,
    prompt_valence, slope, ci_low, ci_high (one row per model x cell)."""
    require_columns(contrast, [label, *SLOPE_CELLS], "contrast (from framing_contrast)")
    rows = []
    for r in contrast.itertuples(index=False):
        d = r._asdict()
        for c, (side, pv) in SLOPE_CELLS.items():
            rows.append({label: d[label], "word_side": f"{side} words", "prompt_valence": f"{pv} prompts",
                         "slope": d[c], "ci_low": d[f"{c}_ci_low"], "ci_high": d[f"{c}_ci_high"]})
    return pd.DataFrame(rows)


def framing_slopes_chart(contrast: pd.DataFrame, label: str = "model", title: str = ""):
    """Dot-and-whisker of the four oriented slopes per model: one panel per prompt valence, colour = word side.

    The framing claim's two halves are read within a panel: under positive prompts the positive-word dot should
    lie right of the negative-word dot, under negative prompts the other way round.
    """

    long = _slopes_long(contrast, label)
    colour = alt.Color("word_side:N", title="words",
                       scale=alt.Scale(domain=["positive words", "negative words"], range=["#4c78a8", "#e45756"]))
    y = alt.Y(f"{label}:N", title=None, axis=alt.Axis(labelLimit=260))
    base = alt.Chart().encode(y=y, yOffset="word_side:N", color=colour)
    rule = base.mark_rule().encode(x=alt.X("ci_low:Q", title="oriented slope (SD of score per valence point)"),
                                   x2="ci_high:Q")
    dots = base.mark_circle(size=50, opacity=1).encode(
        x="slope:Q", tooltip=[f"{label}:N", "word_side:N", "prompt_valence:N", alt.Tooltip("slope:Q", format=".3f"),
                              alt.Tooltip("ci_low:Q", format=".3f"), alt.Tooltip("ci_high:Q", format=".3f")])
    zero = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(0))
    return alt.layer(zero, rule, dots, data=long).properties(width=260).facet(
        column=alt.Column("prompt_valence:N", title=None, sort=["positive prompts", "negative prompts"]),
        title=title)


def swarm_offsets(df: pd.DataFrame, x: str, y: str, by: Sequence[str] = (), bins: int = 40,
                  step: float = 0.06) -> np.ndarray:
    """Horizontal offsets that spread points sharing an x value into a beeswarm (deterministic, no overlap search).

    Within each x value (and ``by`` group), y is cut into ``bins`` bins; the k-th point of a bin goes to
    0, +step, -step, +2 step, ... so dense regions widen, as in a beeswarm plot.
    """
    require_columns(df, [x, y, *by])
    yy = df[y].to_numpy(float)
    lo, hi = np.nanmin(yy), np.nanmax(yy)
    b = np.floor((yy - lo) / ((hi - lo) or 1.0) * (bins - 1e-9)).astype(int)
    key = df[list(by) + [x]].astype(str).agg("|".join, axis=1) + "|" + pd.Series(b, index=df.index).astype(str)
    k = key.groupby(key).cumcount().to_numpy()
    return np.where(k % 2 == 1, 1, -1) * np.ceil(k / 2) * step


def word_swarm_chart(words: pd.DataFrame, x: str = "valence", y: str = "oriented_y", label: str = "word",
                     facet: str = "prompt_valence", color: str = "word_side", title: str = ""):
    """Beeswarm of words: x = lexicon valence spread by :func:`swarm_offsets`, y = mean oriented score; one panel per
    prompt valence. Give one row per word x panel (aggregate first: the chart embeds every row)."""

    require_columns(words, [x, y, label, facet, color])
    d = words[[x, y, label, facet, color]].copy()
    step = 0.8 / max(1.0, float(d.groupby([facet, x]).size().max()) ** 0.5)
    d["x_swarm"] = d[x] + swarm_offsets(d, x, y, by=[facet], step=min(0.06, step * 0.3))
    return alt.Chart(d, title=title).mark_circle(size=22, opacity=0.7).encode(
        x=alt.X("x_swarm:Q", title=f"{x} (spread within each value)"),
        y=alt.Y(f"{y}:Q", title="mean oriented score (z)"),
        color=alt.Color(f"{color}:N", scale=alt.Scale(domain=["positive", "negative"], range=["#4c78a8", "#e45756"])),
        tooltip=[f"{label}:N", alt.Tooltip(f"{x}:Q", format=".2f"), alt.Tooltip(f"{y}:Q", format=".2f")],
    ).properties(width=300, height=260).facet(column=alt.Column(f"{facet}:N", title=None)).interactive()


def cell_strip_chart(cells: pd.DataFrame, label: str = "model", facet: str = "source", title: str = ""):
    """Every model x prompt cell's slope as a dot (jittered vertically), colour = prompt valence, one panel per
    ``facet``; a dashed line at 0."""

    require_columns(cells, [label, "prompt_key", "prompt_valence", "slope", facet])
    d = cells[[label, "prompt_key", "prompt_valence", "slope", facet]]
    colour = alt.Color("prompt_valence:N", title="prompt", scale=alt.Scale(domain=["positive", "negative"],
                                                                          range=["#4c78a8", "#e45756"]))
    dots = alt.Chart().mark_circle(size=28, opacity=0.6).encode(
        x=alt.X("slope:Q", title="slope of standardised score per Zipf unit"),
        y=alt.Y(f"{label}:N", title=None, axis=alt.Axis(labelLimit=260)), yOffset="jitter:Q", color=colour,
        tooltip=[f"{label}:N", "prompt_key:N", alt.Tooltip("slope:Q", format=".3f")],
    ).transform_calculate(jitter="sqrt(-2*log(random()))*cos(2*PI*random())")
    zero = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(0))
    return alt.layer(zero, dots, data=d).properties(width=300).facet(column=alt.Column(f"{facet}:N", title=None),
                                                                      title=title)



def _halves_long(contrast: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    return pd.concat([contrast.assign(half=names[h], est=contrast[h], lo=contrast[f"{h}_ci_low"],
                                      hi=contrast[f"{h}_ci_high"]) for h in FRAMING_HALVES], ignore_index=True)


def framing_halves_chart(contrast: pd.DataFrame, *, label: str = "label", title: str = ""):
    """The two halves of the framing claim per model, with 95% CIs (> 0: the half holds)."""
    long = _halves_long(contrast, FRAMING_HALVES)
    long["row"] = long[label] + " · " + long["half"].str.split(":").str[0]
    return slope_ci(long, "row", "est", "lo", "hi", color="half", title=title)


def halves_by_source_chart(contrasts: dict[str, pd.DataFrame], *, label: str = "label", title: str = ""):
    """The two halves per model and affect lexicon (``contrasts``: lexicon -> framing contrast)."""
    rob = pd.concat([c.assign(source=s) for s, c in contrasts.items()], ignore_index=True)
    long = _halves_long(rob, {h: h for h in FRAMING_HALVES})
    long["row"] = long[label] + " · " + long["source"] + " · " + long["half"]
    return slope_ci(long, "row", "est", "lo", "hi", color="source", title=title)
