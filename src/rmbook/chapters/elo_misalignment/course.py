"""Checks of the elo_misalignment chapter's exercise: each item's consensus rank difference, human rank minus model
rank (rank 1 = the highest score, ties averaged), combined over the models by their median."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.chapters.elo_misalignment.misalignment import consensus_misalignment, misalignment
from rmbook.course.exercises import close, exercise, expect

# One prompt each: human Elo scores and some models' rewards over the same items. An outlier model (median and mean
# differ), ties, an even number of models (a median between two) and rewards on another scale than Elo, so each
# common mistake gives a different answer.
CASES = {
    "three models, no ties": ([1500.0, 1420.0, 1610.0, 1300.0, 1550.0],
                              {"A": [2.0, 1.0, 3.0, 0.5, 2.5], "B": [0.1, 0.9, 0.7, 0.2, 0.3],
                               "C": [5.0, 4.0, 6.0, 1.0, 2.0]}),
    "an outlier model": ([1200.0, 1250.0, 1300.0, 1350.0, 1400.0, 1450.0],
                         {"A": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "B": [1.1, 2.1, 3.1, 4.1, 5.1, 6.1],
                          "C": [60.0, 50.0, 40.0, 30.0, 20.0, 10.0]}),
    "tied scores": ([1500.0, 1500.0, 1400.0, 1600.0, 1400.0, 1450.0],
                    {"A": [-1.0, -1.0, 0.5, 0.5, 2.0, -3.0], "B": [3.0, 1.0, 1.0, 1.0, 0.0, 2.0],
                     "C": [0.2, 0.4, 0.4, 0.1, 0.3, 0.3]}),
    "four models": ([1000.0, 1100.0, 1200.0, 1300.0, 1400.0],
                    {"A": [5.0, 4.0, 3.0, 2.0, 1.0], "B": [1.0, 2.0, 3.0, 4.0, 5.0], "C": [2.0, 1.0, 5.0, 3.0, 4.0],
                     "D": [3.0, 5.0, 1.0, 2.0, 4.0]}),
}


def _frames(human: list[float], models: dict[str, list[float]]) -> tuple[pd.Series, pd.DataFrame]:
    items = [f"item {i + 1}" for i in range(len(human))]
    return pd.Series(human, index=items, name="elo_score"), pd.DataFrame(models, index=items)


def reference(human: pd.Series, rewards: pd.DataFrame) -> pd.Series:
    """The chapter's consensus rank difference per item (rmbook.chapters.elo_misalignment.misalignment), indexed by
    item."""
    wide = rewards.assign(elo_score=human).rename_axis("item").reset_index()
    mis = misalignment(wide, "elo_score", list(rewards.columns), item="item")
    return consensus_misalignment(mis, aggregate="median").set_index("item")["rank_diff"].reindex(human.index)


def _variants(human: pd.Series, rewards: pd.DataFrame) -> list[tuple[pd.Series, str]]:
    """The common wrong answers, each with the hint that names it."""
    def diff(h_rank, m_ranks, agg="median"):
        return m_ranks.rsub(h_rank, axis=0).agg(agg, axis=1)

    h, m = human.rank(ascending=False), rewards.rank(ascending=False)
    z = lambda s: (s - s.mean()) / s.std(ddof=1)  # noqa: E731
    pooled = rewards.stack().rank(ascending=False).unstack()[rewards.columns]
    return [
        (-diff(h, m), "The sign is flipped: either you ranked from the lowest score (rank 1 must be the item with "
                      "the HIGHEST score, rank(ascending=False)), or you subtracted the human rank from the model "
                      "rank. The rank difference is human rank − model rank, positive when the model puts the item "
                      "higher than people do (over-values it)."),
        (diff(h, m, "mean"), "That is the mean over models: the chapter's consensus is the median, which one model "
                             "with an extreme rank cannot move."),
        (rewards.apply(z).rsub(z(human), axis=0).mul(-1).median(axis=1),
         "That is the z difference (model z − human z), the other method: use ranks."),
        (diff(h, pooled), "You ranked all the models' rewards together: rank each model's rewards among its own "
                          "items only (their scales differ)."),
        *[(diff(human.rank(ascending=False, method=k), rewards.rank(ascending=False, method=k)),
           f"Tied scores got {k!r} ranks: ties share the average of the ranks they span (method='average', "
           "pandas' default).") for k in ("min", "max", "first", "dense")],
    ]


def _as_series(got, index) -> pd.Series | None:
    try:
        s = got if isinstance(got, pd.Series) else pd.Series(np.asarray(got, dtype=float), index=index)
        return s.astype(float).reindex(index)
    except (TypeError, ValueError):
        return None


@exercise("elo_misalignment.consensus")
def check_consensus(consensus_rank_diff) -> int:
    """``consensus_rank_diff(human, rewards)``: ``human`` a Series of human scores by item, ``rewards`` a DataFrame
    items × models; the median over models of human rank − model rank, per item, as a Series by item."""
    for name, (human, models) in CASES.items():
        h, r = _frames(human, models)
        want = reference(h, r)
        got = _as_series(consensus_rank_diff(h.copy(), r.copy()), h.index)
        expect(got is not None and got.notna().all(),
               "return one number per item: a Series indexed by the items (as `human` is), no missing values")
        if close(got.to_numpy(), want.to_numpy()):
            continue
        hint = next((h_ for alt, h_ in _variants(h, r) if close(got.to_numpy(), alt.reindex(h.index).to_numpy())),
                    "")
        expect(False, f"on {name}: you give {np.round(got.to_numpy(), 3).tolist()}; the consensus rank differences "
                      f"are {np.round(want.to_numpy(), 3).tolist()} (human scores {human}, rewards {models}). "
                      f"{hint}".rstrip())
    h, r = _frames(*CASES["three models, no ties"])
    got = _as_series(consensus_rank_diff(h.iloc[::-1].copy(), r.iloc[::-1].copy()), h.index)
    expect(got is not None and close(got.to_numpy(), reference(h, r).to_numpy()),
           "with the items in another order the answer must follow the items: keep the item index (do not return a "
           "bare array in a fixed order)")
    return len(CASES) + 1
