"""The book's basic chart types: heatmap, ranked bars, histogram, scatter, dot-and-whisker estimates with CIs."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from rmbook.report.charts.render import tooltip as _tooltip
from rmlib.stats import require_columns

__all__ = ["heatmap", "ranked_bar", "histogram", "scatter", "slope_ci", "effect_chart"]


def _require(df: pd.DataFrame, *cols: str | None, what: str) -> None:
    require_columns(df, [c for c in cols if c is not None], what)


def heatmap(matrix: pd.DataFrame, *, title: str = "", value_name: str = "value",
            scheme: str = "blueorange", domain: tuple[float, float] | None = None,
            annotate: bool = True, fmt: str = ".2f", size: int = 22) -> alt.Chart:
    """Colour grid of a square or rectangular matrix (e.g. pairwise Kendall tau between models).

    Rows and columns keep the matrix's order, so sort the matrix (e.g. by clustering) first.
    """
    if not isinstance(matrix, pd.DataFrame):
        raise TypeError(f"heatmap: expected a pandas DataFrame matrix, got {type(matrix).__name__}")
    if matrix.empty:
        raise ValueError("heatmap: the matrix is empty")
    rows = [str(r) for r in matrix.index]
    cols = [str(c) for c in matrix.columns]
    long = pd.DataFrame(
        [(r, c, float(v)) for r, row in zip(rows, matrix.to_numpy()) for c, v in zip(cols, row)],
        columns=["row", "column", value_name],
    )
    scale = alt.Scale(scheme=scheme, domain=list(domain)) if domain else alt.Scale(scheme=scheme)
    base = alt.Chart(long, title=title).encode(
        x=alt.X("column:N", sort=cols, title=None, axis=alt.Axis(labelAngle=-45, labelLimit=220)),
        y=alt.Y("row:N", sort=rows, title=None, axis=alt.Axis(labelLimit=220)),
    )
    rect = base.mark_rect().encode(
        color=alt.Color(f"{value_name}:Q", scale=scale),
        tooltip=["row:N", "column:N", alt.Tooltip(f"{value_name}:Q", format=fmt)],
    )
    chart = rect
    if annotate:
        text = base.mark_text(fontSize=9).encode(text=alt.Text(f"{value_name}:Q", format=fmt))
        chart = rect + text
    return chart.properties(width=size * len(cols), height=size * len(rows))

def ranked_bar(df: pd.DataFrame, label: str, value: str, k: int = 10, *, title: str = "",
               tooltip: list[str] | None = None, width: int = 260) -> alt.HConcatChart:
    """Horizontal bars of the top-k and bottom-k rows by ``value``, side by side."""
    _require(df, label, value, *(tooltip or []), what="ranked_bar")
    keep = list(dict.fromkeys([label, value, *(tooltip or [])]))
    d = df[keep].dropna(subset=[value])
    parts = []
    for name, sub, order in (("top", d.nlargest(k, value), "descending"),
                             ("bottom", d.nsmallest(k, value), "ascending")):
        parts.append(
            alt.Chart(sub, title=f"{name} {len(sub)}").mark_bar().encode(
                x=alt.X(f"{value}:Q"),
                y=alt.Y(f"{label}:N", sort=alt.EncodingSortField(field=value, order=order), title=None),
                color=alt.value("#4c78a8" if name == "top" else "#e45756"),
                tooltip=_tooltip(sub, keep),
            ).properties(width=width)
        )
    return alt.hconcat(*parts, title=title).resolve_scale(x="independent")


MAX_OVERLAID = 4  # more groups than this get one small panel each: overlaid outlines would hide their shapes


def histogram(df: pd.DataFrame, value: str, *, by: str | None = None, bins: int = 60,
              density: bool = False, title: str = "", width: int = 420, height: int = 220) -> alt.Chart:
    """Distribution of ``value``, binned in numpy so that a full-vocabulary sweep (~10^5 tokens) embeds only ``bins``
    rows per group. With ``by``, each group keeps its own shape on the same bins: up to ``MAX_OVERLAID`` groups as
    overlaid step outlines, more as one small panel per group sharing the x axis. (Bars coloured by group would be
    stacked by Vega-Lite, and a stack of ten RMs shows none of their distributions.)"""
    _require(df, value, by, what="histogram")
    if bins < 1:
        raise ValueError(f"histogram: bins must be >= 1, got {bins}")
    vals = df[value].to_numpy(dtype=float)
    finite = vals[np.isfinite(vals)]
    if finite.size == 0:
        raise ValueError(f"histogram: column {value!r} has no finite values")
    edges = np.histogram_bin_edges(finite, bins=bins)
    groups = [(None, df)] if by is None else list(df.groupby(by, sort=True))
    rows = []
    for g, sub in groups:
        v = sub[value].to_numpy(dtype=float)
        counts, _ = np.histogram(v[np.isfinite(v)], bins=edges, density=density)
        for lo, hi, c in zip(edges[:-1], edges[1:], counts):
            rows.append({"group": "all" if g is None else str(g), "bin_start": lo, "bin_end": hi, "y": c})
    binned = pd.DataFrame(rows)
    ytitle = "density" if density else "count"
    tooltip = [alt.Tooltip("bin_start:Q", format=".3g"), alt.Tooltip("bin_end:Q", format=".3g"),
               alt.Tooltip("y:Q", title=ytitle, format=".3g")] + ([alt.Tooltip("group:N", title=by)] if by else [])
    if by is None:
        return alt.Chart(binned, title=title).mark_bar(opacity=0.85).encode(
            x=alt.X("bin_start:Q", title=value, bin="binned"), x2="bin_end:Q", y=alt.Y("y:Q", title=ytitle),
            tooltip=tooltip).properties(width=width, height=height)
    line = dict(x=alt.X("bin_start:Q", title=value), y=alt.Y("y:Q", title=ytitle, stack=None), tooltip=tooltip)
    if len(groups) <= MAX_OVERLAID:
        sel = alt.selection_point(fields=["group"], bind="legend")
        return alt.Chart(binned, title=title).mark_line(interpolate="step-after").encode(
            color=alt.Color("group:N", title=by), opacity=alt.condition(sel, alt.value(0.9), alt.value(0.1)),
            **line).add_params(sel).properties(width=width, height=height)
    panel = max(40, height // 3)
    return alt.Chart(binned).mark_area(interpolate="step-after", opacity=0.6).encode(
        color=alt.Color("group:N", title=by, legend=None), **line).properties(width=width, height=panel).facet(
        row=alt.Row("group:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")),
        title=title).resolve_scale(y="independent")


def scatter(df: pd.DataFrame, x: str, y: str, *, tooltip: list[str] | None = None, color: str | None = None,
            title: str = "", width: int = 420, height: int = 320, log_x: bool = False,
            log_y: bool = False, opacity: float = 0.5) -> alt.Chart:
    """Point cloud with hover tooltips and pan/zoom (only the named columns are embedded)."""
    _require(df, x, y, color, *(tooltip or []), what="scatter")
    keep = list(dict.fromkeys([x, y, *(tooltip or []), *([color] if color else [])]))
    d = df[keep]
    enc = dict(
        x=alt.X(f"{x}:Q", scale=alt.Scale(type="log" if log_x else "linear", zero=False)),
        y=alt.Y(f"{y}:Q", scale=alt.Scale(type="log" if log_y else "linear", zero=False)),
        tooltip=_tooltip(d, keep),
    )
    if color:
        kind = "Q" if pd.api.types.is_numeric_dtype(d[color]) else "N"
        enc["color"] = alt.Color(f"{color}:{kind}")
    return (alt.Chart(d, title=title).mark_circle(size=18, opacity=opacity).encode(**enc)
            .properties(width=width, height=height).interactive())


def slope_ci(df: pd.DataFrame, label: str, estimate: str, lo: str, hi: str, *, color: str | None = None,
             reference: float | None = 0.0, title: str = "", width: int = 360, x_title: str | None = None) -> alt.Chart:
    """Dot-and-whisker plot of estimates (slopes, effect sizes) with their CIs, sorted by estimate; the x axis is
    titled ``x_title`` (default: the estimate's column name)."""
    _require(df, label, estimate, lo, hi, color, what="slope_ci")
    bad = df[(df[lo] > df[estimate]) | (df[hi] < df[estimate])]
    if len(bad):
        raise ValueError(f"slope_ci: {len(bad)} rows have {estimate} outside [{lo}, {hi}], e.g. {bad[label].iloc[0]!r}")
    keep = list(dict.fromkeys([label, estimate, lo, hi, *([color] if color else [])]))
    d = df[keep]
    y = alt.Y(f"{label}:N", sort=alt.EncodingSortField(field=estimate, order="descending"), title=None,
              axis=alt.Axis(labelLimit=260))
    enc_color = {"color": alt.Color(f"{color}:N")} if color else {}
    rule = alt.Chart(d).mark_rule().encode(x=alt.X(f"{lo}:Q", title=x_title or estimate), x2=f"{hi}:Q", y=y,
                                                 **enc_color)
    dots = alt.Chart(d).mark_circle(size=60, opacity=1).encode(
        x=f"{estimate}:Q", y=y, tooltip=_tooltip(d, keep), **enc_color)
    layers = [rule, dots]
    if reference is not None:
        layers.insert(0, alt.Chart(pd.DataFrame({"ref": [reference]})).mark_rule(strokeDash=[4, 3], color="gray")
                      .encode(x="ref:Q"))
    return alt.layer(*layers, title=title).properties(width=width)


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
