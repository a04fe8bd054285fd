"""rmbook.chapters.elo_misalignment.misalignment: planted misaligned items, cluster bootstrap intervals, a consensus
robust to one model."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rmbook.chapters.elo_misalignment import misalignment


def test_misalignment_finds_planted_items():
    rng = np.random.default_rng(9)
    n = 200
    human = rng.normal(size=n)
    df = pd.DataFrame({"item": [f"i{j}" for j in range(n)], "human": human, "category": "c",
                       "same": human * 3 + 1,  # a monotone rescaling: perfectly aligned
                       "rm": human + 0.05 * rng.normal(size=n)})
    lo, hi = int(np.argmin(human)), int(np.argmax(human))
    df.loc[lo, "rm"], df.loc[hi, "rm"] = human.max() + 1, human.min() - 1  # swap the extremes
    mis = misalignment.misalignment(df, "human", ["same", "rm"])
    same = mis[mis["model"] == "same"]
    assert np.allclose(same["rank_diff"], 0) and np.allclose(same["z_diff"], 0, atol=1e-12)
    for method in ("rank", "z"):
        top = misalignment.most_misaligned(mis[mis["model"] == "rm"], n=1, method=method).set_index("direction")
        assert top.loc["over", "item"] == f"i{lo}" and top.loc["under", "item"] == f"i{hi}"
    assert mis.loc[(mis["model"] == "rm") & (mis["item"] == f"i{lo}"), "rank_diff"].item() == n - 1
    summary = misalignment.misalignment_by(mis, "category")
    assert set(summary.columns) >= {"rank_diff_mean", "rank_diff_ci_low", "z_diff_ci_high", "n"}
    with pytest.raises(ValueError, match="NaN"):
        misalignment.misalignment(df.assign(rm=df["rm"].where(df.index > 0)), "human", ["rm"])
    with pytest.raises(ValueError, match="lacks columns"):
        misalignment.misalignment(df, "human", ["nope"])


def _clustered_mis(n_items=60, n_prompts=3, seed=0):
    """Each item appears under every prompt with nearly the same rank difference: the prompts add no information."""
    rng = np.random.default_rng(seed)
    item_effect = rng.normal(0, 100, n_items)
    rows = [{"item": f"i{i}", "prompt_key": f"p{p}", "model": "m", "category": "c",
             "rank_diff": item_effect[i] + rng.normal(0, 1), "z_diff": item_effect[i] / 100 + rng.normal(0, 0.01)}
            for i in range(n_items) for p in range(n_prompts)]
    return pd.DataFrame(rows)


def test_cluster_bootstrap_is_wider_than_the_row_bootstrap_on_clustered_data():
    mis = _clustered_mis()
    by_item = misalignment.misalignment_by(mis, "category", n_resamples=2000).iloc[0]
    by_row = misalignment.misalignment_by(mis, "category", cluster=None, n_resamples=2000).iloc[0]
    width = lambda r: r["rank_diff_ci_high"] - r["rank_diff_ci_low"]
    assert by_item["n"] == 180 and by_item["n_clusters"] == 60
    # resampling rows treats 3 copies as 3 observations: its interval is ~sqrt(3) too narrow
    assert width(by_item) / width(by_row) == pytest.approx(np.sqrt(3), rel=0.25)
    assert by_item["rank_diff_ci_low"] < by_item["rank_diff_mean"] < by_item["rank_diff_ci_high"]
    # with one row per item the two agree
    one = mis[mis["prompt_key"] == "p0"]
    a = misalignment.misalignment_by(one, "category", n_resamples=2000).iloc[0]
    b = misalignment.misalignment_by(one, "category", cluster=None, n_resamples=2000).iloc[0]
    assert width(a) == pytest.approx(width(b), rel=0.15)


def test_consensus_median_resists_one_extreme_model():
    rows = []
    for m in range(5):
        for i in range(20):
            rank = i + 1 + (15 if (m == 0 and i == 0) else 0) + (1 if i == 5 else 0)  # model 0 alone drops i0
            # far down; every model puts i5 one rank lower than people do
            rows.append({"item": f"i{i}", "model": f"m{m}", "human_rank": i + 1, "model_rank": rank,
                         "rank_diff": (i + 1) - rank, "z_diff": 0.0, "prompt_key": "p"})
    mis = pd.DataFrame(rows)
    med = misalignment.consensus_misalignment(mis, ["prompt_key"], aggregate="median").set_index("item")
    mean = misalignment.consensus_misalignment(mis, ["prompt_key"], aggregate="mean").set_index("item")
    assert med.loc["i0", "rank_diff"] == 0 and mean.loc["i0", "rank_diff"] == -3
    assert med.loc["i0", "n_models"] == 5 and med.loc["i0", "share_over"] == 0
    ov = misalignment.top_overlap(med.reset_index(), mean.reset_index(), 1)
    assert ov["shared"] == 0 and ov["only_a"] == ["i5"] and ov["only_b"] == ["i0"]
    table = misalignment.top_overlap_by(med.reset_index(), mean.reset_index(), "prompt_key", 1, names=("median", "mean"))
    assert list(table["direction"]) == ["under", "over"] and table.loc[0, "only_mean"] == "i0"
    side = misalignment.extremes_side_by_side(mean.reset_index(), "prompt_key", 2, "under")
    assert side.loc[1, "p"] == "i0 (-3)" and side.loc[2, "p"] == "i5 (-1)"
    with pytest.raises(ValueError, match="aggregate"):
        misalignment.consensus_misalignment(mis, aggregate="mode")
