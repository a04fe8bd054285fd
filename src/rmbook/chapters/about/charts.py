"""Charts that set a model's ranking against the human one (the about page)."""
from __future__ import annotations

import altair as alt
import pandas as pd

from rmbook.report.charts.basic import scatter
from rmlib.stats import require_columns

__all__ = ["human_vs_model_ranks"]


def human_vs_model_ranks(df: pd.DataFrame, model: str, *, title: str = "") -> alt.Chart:
    """Each item's human rank against ``model``'s rank (1 = best), with a slider that hides items with fewer human
    votes (``elo_matches``) than chosen."""
    require_columns(df, ["item", "elo_rank", "elo_matches", model], "human_vs_model_ranks")
    min_votes = alt.param(name="min_votes", value=0,
                          bind=alt.binding_range(min=0, max=int(df["elo_matches"].quantile(0.9)), step=10,
                                                 name="minimum human votes "))
    ranks = df.assign(rm_rank=df[model].rank(ascending=False, method="min"))
    return (scatter(ranks, "elo_rank", "rm_rank", tooltip=["item", "elo_matches", model],
                    title=title or f"Human rank vs {model} rank (1 = best)")
            .add_params(min_votes).transform_filter(alt.datum.elo_matches >= min_votes))
