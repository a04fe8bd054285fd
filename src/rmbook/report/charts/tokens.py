"""Charts of the token and item chapters: tail composition, rank trajectories, topic enrichment, the tail explorer."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from rmbook.report.tables import show_whitespace
from rmlib.stats import require_columns

__all__ = ["tail_composition_chart", "rank_trajectory_chart", "enrichment_chart", "tail_table", "tail_explorer"]


def tail_composition_chart(comp: pd.DataFrame, *, by: str | None = None, title: str = "") -> alt.Chart:
    """Grouped bars of category shares (top, bottom, all) with Wilson CI whiskers; one row of panels per ``by``."""
    require_columns(comp, ["tail", "value", "share", "ci_low", "ci_high"] + ([by] if by else []), "comp")
    d = comp.assign(value=comp["value"].astype(str))
    order = ["top", "all", "bottom"]
    colors = alt.Scale(domain=order, range=["#4c78a8", "#bab0ac", "#e45756"])
    base = alt.Chart(d).encode(
        x=alt.X("value:N", title=None, sort=list(dict.fromkeys(d["value"]))),
        xOffset=alt.XOffset("tail:N", sort=order),
    )
    bars = base.mark_bar().encode(
        y=alt.Y("share:Q", title="share of tokens", axis=alt.Axis(format="%")),
        color=alt.Color("tail:N", scale=colors, sort=order),
        tooltip=[*( [alt.Tooltip(f"{by}:N")] if by else []), "tail:N", "value:N", "count:Q", "n:Q",
                 alt.Tooltip("share:Q", format=".1%"), alt.Tooltip("ci_low:Q", format=".1%"),
                 alt.Tooltip("ci_high:Q", format=".1%")],
    )
    whiskers = base.mark_rule().encode(y="ci_low:Q", y2="ci_high:Q")
    chart = (bars + whiskers).properties(width=max(200, 16 * d["value"].nunique() * 3), height=180)
    if by:
        return chart.facet(row=alt.Row(f"{by}:N", title=None), title=title)
    return chart.properties(title=title)


def rank_trajectory_chart(traj: pd.DataFrame, order: list[str], *, item: str = "item", ranker: str = "ranker",
                          value: str = "rank percentile", title: str = "") -> alt.Chart:
    """One line per item through its rank under each ranker (humans, then models); click the legend to highlight.

    The y axis is reversed so that the best rank is at the top.
    """
    require_columns(traj, [item, ranker, value], "traj")
    if traj[item].nunique() * len(order) > 5000:
        raise ValueError("too many item x ranker points for an interactive chart; pick fewer items")
    sel = alt.selection_point(fields=[item], bind="legend")
    return (alt.Chart(traj, title=title).mark_line(point=True).encode(
        x=alt.X(f"{ranker}:N", sort=order, title=None, axis=alt.Axis(labelAngle=-30, labelLimit=200)),
        y=alt.Y(f"{value}:Q", scale=alt.Scale(reverse=True), title=f"{value} (top = best)"),
        color=alt.Color(f"{item}:N", legend=alt.Legend(labelLimit=260)),
        opacity=alt.condition(sel, alt.value(1.0), alt.value(0.15)),
        tooltip=[f"{item}:N", f"{ranker}:N", alt.Tooltip(f"{value}:Q", format=".1f")],
    ).add_params(sel).properties(width=max(300, 60 * len(order)), height=280))


def enrichment_chart(table: pd.DataFrame, label: str = "topic", title: str = "", width: int = 360):
    """Observed / expected count of flagged items per topic (dots; filled when p_fdr < 0.05) against the middle 95%
    of the permutation null (grey bars), on a log scale; the dashed line is 'as often as chance'."""

    require_columns(table, [label, "ratio", "expected", "null_low", "null_high", "p_fdr", "n_items", "n_flagged"])
    d = table[table["expected"] > 0].copy()
    floor = 0.5 / d["expected"]  # a count of 0 drawn at half a count, so the log scale can show it
    d["null_ratio_low"] = np.maximum(d["null_low"], 0.5) / d["expected"]
    d["null_ratio_high"] = np.maximum(d["null_high"], 0.5) / d["expected"]
    d["ratio_shown"] = np.maximum(d["ratio"], floor)
    d["significant"] = np.where(d["p_fdr"] < 0.05, "FDR < 0.05", "not significant")
    y = alt.Y(f"{label}:N", sort=alt.EncodingSortField(field="ratio", order="descending"), title=None,
              axis=alt.Axis(labelLimit=260))
    x_scale = alt.Scale(type="log")
    bars = alt.Chart(d).mark_rule(color="#bbbbbb", strokeWidth=6).encode(
        x=alt.X("null_ratio_low:Q", scale=x_scale, title="observed / expected among the flagged items"),
        x2="null_ratio_high:Q", y=y)
    dots = alt.Chart(d).mark_point(size=70, filled=True).encode(
        x=alt.X("ratio_shown:Q", scale=x_scale), y=y,
        color=alt.Color("significant:N", title=None, scale=alt.Scale(domain=["FDR < 0.05", "not significant"],
                                                                     range=["#e45756", "#4c78a8"])),
        tooltip=[f"{label}:N", "n_items:Q", "n_flagged:Q", alt.Tooltip("expected:Q", format=".1f"),
                 alt.Tooltip("ratio:Q", format=".2f"), alt.Tooltip("p_fdr:Q", format=".3g")])
    one = alt.Chart(pd.DataFrame({"one": [1.0]})).mark_rule(strokeDash=[4, 3], color="gray").encode(x="one:Q")
    return alt.layer(one, bars, dots, title=title).properties(width=width)


def tail_table(sweeps: pd.DataFrame, k_max: int = 25) -> pd.DataFrame:
    """The top and bottom tokens of each model x prompt (at most ``k_max`` and half the smallest sweep): model label,
    prompt, tail, rank (1 = the extreme), token_id, token with whitespace shown, reward. The data of
    :func:`tail_explorer`, whose bars are keyed by ``token``: so that two ids that display alike (byte fragments
    that both show as "��") stay two bars rather than one stacked bar of a reward no token has, such a token's
    label also gives its id."""
    require_columns(sweeps, ["model", "model_label", "prompt", "token_id", "text", "reward"])
    k = min(k_max, int(sweeps.groupby(["model", "prompt"]).size().min() // 2))
    parts = []
    for (m, p), g in sweeps.groupby(["model_label", "prompt"], sort=False):
        for tail, part in (("top", g.nlargest(k, "reward")), ("bottom", g.nsmallest(k, "reward"))):
            shown = pd.Series([show_whitespace(t) for t in part.text])
            twice = shown.duplicated(keep=False).to_numpy()
            ids = part.token_id.to_numpy()
            labels = [f"{t} (id {i})" if dup else t for t, i, dup in zip(shown, ids, twice)]
            parts.append(pd.DataFrame({"model": m, "prompt": p, "tail": tail, "rank": np.arange(1, len(part) + 1),
                                       "token_id": ids, "token": labels, "reward": part.reward.values}))
    return pd.concat(parts, ignore_index=True)


def tail_explorer(tb: pd.DataFrame) -> alt.HConcatChart:
    """Top and bottom token bars of :func:`tail_table` with menus for model and prompt and a slider for how many
    tokens (bound parameters, so the controls work in the static book too)."""
    k_max = int(tb["rank"].max())
    pick_m = alt.param(name="model_pick", value=tb.model.iloc[0],
                       bind=alt.binding_select(options=list(dict.fromkeys(tb.model)), name="model "))
    pick_p = alt.param(name="prompt_pick", value=tb.prompt.iloc[0],
                       bind=alt.binding_select(options=list(dict.fromkeys(tb.prompt)), name="prompt "))
    pick_k = alt.param(name="k_pick", value=min(10, k_max), bind=alt.binding_range(min=3, max=k_max, step=1, name="k "))
    base = alt.Chart(tb).transform_filter(
        (alt.datum.model == pick_m) & (alt.datum.prompt == pick_p) & (alt.datum["rank"] <= pick_k))
    panels = [base.transform_filter(alt.datum.tail == t).mark_bar(color=c).encode(
                  x=alt.X("reward:Q"), y=alt.Y("token:N", sort=alt.EncodingSortField("rank"), title=None),
                  tooltip=["token:N", alt.Tooltip("token_id:Q", title="id"), "rank:Q",
                           alt.Tooltip("reward:Q", format=".3f")]
              ).properties(title=f"{t} tokens", width=240) for t, c in (("top", "#4c78a8"), ("bottom", "#e45756"))]
    return alt.hconcat(*panels).add_params(pick_m, pick_p, pick_k).resolve_scale(x="independent")
