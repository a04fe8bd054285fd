"""Charts of how alike models are: a grid of similarity heatmaps and an MDS map (the heterogeneity chapter)."""
from __future__ import annotations

import altair as alt
import pandas as pd

from rmbook.report.charts.basic import heatmap, scatter
from rmlib.stats import require_columns

__all__ = ["similarity_heatmaps", "mds_map"]

_BOUNDED = ("kendall", "spearman")  # statistics on [-1, 1]; the others (RBO) are on [0, 1]


def similarity_heatmaps(mats: dict[str, pd.DataFrame], order: list[str], titles: dict[str, str], *,
                        run: str = "") -> alt.VConcatChart:
    """One heatmap per similarity matrix, models in ``order``, two per row (``titles``: display name per key)."""
    size = 28 if len(order) > 6 else 40
    heat = [heatmap(m.loc[order, order], title=f"{titles[k]} ({run})" if run else titles[k],
                    value_name=k.split()[0], domain=(-1, 1) if k in _BOUNDED else (0, 1), size=size)
            for k, m in mats.items()]
    return alt.vconcat(*[alt.hconcat(*heat[i:i + 2]) for i in range(0, len(heat), 2)])


def mds_map(coords: pd.DataFrame, meta: pd.DataFrame, *, title: str = "") -> alt.LayerChart:
    """Models as labelled points on two MDS axes (``coords``: dim1, dim2 by model), coloured by base family."""
    pts = coords.join(meta).reset_index()
    require_columns(pts, ["model", "dim1", "dim2", "id", "base", "developer", "size_b"], "mds_map")
    dots = scatter(pts, "dim1", "dim2", tooltip=["model", "id", "base", "developer", "size_b"], color="base",
                   title=title, opacity=0.9)
    labels = alt.Chart(pts).mark_text(dy=-9, fontSize=10).encode(x="dim1:Q", y="dim2:Q", text="model:N")
    return dots + labels
