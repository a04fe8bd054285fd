"""Charts of the value chapters (Big Two, MFD2, implicit rewards) and of the fine-tuning chapter."""
from __future__ import annotations

import altair as alt
import pandas as pd

from rmbook.report.charts.render import tooltip as _tooltip
from rmlib.stats import require_columns

__all__ = ["median_rank_chart", "trajectory_chart", "gap_chart", "published_trajectory_chart"]


def median_rank_chart(model_medians: pd.DataFrame, *, category: str = "category", valence: str = "valence",
                      family: str = "family", nicknames=None, title: str = "", width: int = 160,
                      height: int = 260) -> alt.FacetChart:
    """Median within-prompt rank per family × category × valence, one dot per model and a tick at the family mean.

    Input: one row per model × category × valence (``family_analysis(...)['model_medians']``). The y axis is
    reversed so that a category ranked higher (rank 1 = top) sits higher. ``nicknames`` (model -> nickname, e.g.
    :func:`rmbook.analysis.values.nicknames`) adds them to the tooltips.
    """
    require_columns(model_medians, ["model", family, category, valence, "median_rank"], "median_rank_chart")
    d = model_medians[["model", family, category, valence, "median_rank"]].copy()
    if nicknames is not None:
        d["nickname"] = d["model"].map(nicknames)
    elif "nickname" in model_medians.columns:
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


def trajectory_chart(profiles: pd.DataFrame, prompt_label: str = "positive", title: str = ""):
    """Median rank share of each category vs training step, one panel per base (0 = top of the ranking)."""
    d = profiles[profiles["prompt_label"] == prompt_label]
    d = d.groupby(["base_model", "category", "step"], as_index=False)["median_rank_share"].mean()
    if d.empty:
        raise ValueError(f"no profile rows for prompt {prompt_label!r}")
    return (alt.Chart(d, title=title or f"Value profile over training ({prompt_label} prompt)")
            .mark_line(point=True)
            .encode(x=alt.X("step:Q", title="training step"),
                    y=alt.Y("median_rank_share:Q", title="median rank share (0 = top)", scale=alt.Scale(reverse=True)),
                    color="category:N", column=alt.Column("base_model:N", title=None),
                    tooltip=["base_model", "category", "step", alt.Tooltip("median_rank_share:Q", format=".3f")])
            .properties(width=200, height=180))


def gap_chart(df: pd.DataFrame, x: str, value: str = "rm_gap", title: str = ""):
    """Category gap per prompt against `x`: a line over a numeric x (steps, pairs), points otherwise.

    Optional columns draw more: ci_low/ci_high as error bars (across seeds), base_lm_gap as a hollow diamond for
    the base LM, so an RM and the base it came from sit side by side.
    """
    need = {x, value, "prompt_label"}
    if not need <= set(df.columns) or df.empty:
        raise ValueError(f"gap_chart needs non-empty columns {sorted(need)}, got {list(df.columns)}")
    numeric = pd.api.types.is_numeric_dtype(df[x])
    xenc = alt.X(f"{x}:{'Q' if numeric else 'N'}", title=x.replace("_", " "),
                 scale=alt.Scale(type="log") if numeric and (df[x] > 0).all() else alt.Undefined)
    tips = [x, "prompt_label", alt.Tooltip(f"{value}:Q", format=".3f")]
    base = alt.Chart(df).encode(x=xenc)
    layers = [base.mark_line(point=True) if numeric else base.mark_point(filled=True, size=70)]
    layers[0] = layers[0].encode(y=alt.Y(f"{value}:Q", title="gap in median rank share (< 0: first category higher)"),
                                 tooltip=tips)
    if {"ci_low", "ci_high"} <= set(df.columns) and df["ci_low"].notna().any():
        layers.append(base.mark_rule().encode(y="ci_low:Q", y2="ci_high:Q"))
    if "base_lm_gap" in df.columns:
        layers.append(base.mark_point(shape="diamond", size=90, color="black").encode(
            y="base_lm_gap:Q", tooltip=[x, "prompt_label", alt.Tooltip("base_lm_gap:Q", format=".3f")]))
    zero = alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(y=alt.datum(0))
    return (alt.layer(*layers, zero, data=df)
            .properties(width=220, height=200)
            .facet(column=alt.Column("prompt_label:N", title=None), title=title or "Category gap")
            .resolve_scale(y="shared"))


def published_trajectory_chart(ranks: pd.DataFrame, first: str = "Agency", second: str = "Communion"):
    """The authors' checkpoint trajectories (load_checkpoint_ranks): median-rank gap vs checkpoint, per run.

    Below zero, `first` ranks higher. Runs with a single checkpoint (GRM) show as one point.
    """
    need = {"file", "data_source", "quantity_k", "method", "base_family", "checkpoint", "category", "median_rank"}
    if not need <= set(ranks.columns):
        raise ValueError(f"published_trajectory_chart needs the columns of load_checkpoint_ranks(), got {list(ranks.columns)}")
    w = ranks.pivot_table(index=["data_source", "quantity_k", "method", "base_family", "checkpoint"],
                          columns="category", values="median_rank").reset_index()
    w["gap"] = w[first] - w[second]
    w["run"] = w["data_source"] + " " + w["quantity_k"].astype(str) + "k " + w["method"]
    order = list(w.sort_values(["data_source", "method", "quantity_k"])["run"].unique())
    return (alt.Chart(w, title=f"Published checkpoints: {first} minus {second} median rank (< 0: {first} higher)")
            .mark_line(point=True)
            .encode(x=alt.X("checkpoint:Q", title="training step"), y=alt.Y("gap:Q", title="median-rank gap"),
                    color=alt.Color("base_family:N", title="base"),
                    column=alt.Column("run:N", title=None, sort=order),
                    tooltip=["run", "base_family", "checkpoint", alt.Tooltip("gap:Q", format=".1f")])
            .properties(width=150, height=160))
