"""The "Value cards" page's results: the rows of :func:`rmbook.chapters.value_cards.gallery.gallery_rows` for the paper
RMs' and the computed models' cards, and what the computed cards show together (:func:`computed_summary`), which the
page's sentences state."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.value_cards.analysis import ValueCard
from rmbook.chapters.value_cards.gallery import n_beyond_gap
from rmbook.chapters.value_cards.types import CardRow, ComputedSummary, Trained, TrainedPair, ValueCardsResults

__all__ = ["CardRow", "ComputedSummary", "Trained", "TrainedPair", "ValueCardsResults", "computed_summary",
           "trained", "chapter_results", "rows_frame"]

AMONG = "among them"


def computed_summary(rows: pd.DataFrame, lowest_paper_tau: float | None) -> ComputedSummary | None:
    """The computed models' cards together (``rows``: :func:`gallery_rows` of them; None when there are none)."""
    if rows.empty:
        return None
    beyond = rows[(rows["side_negative"] != AMONG) | (rows["side_positive"] != AMONG)]["label"].tolist()
    n_beyond = rows["n_foundations_beyond"].dropna()
    taus = rows["nearest_tau"].dropna()
    top = rows.loc[taus.idxmax()] if len(taus) else None
    elo = rows.dropna(subset=["elo_side"])
    elo_beyond = dict(zip(elo.loc[elo["elo_side"] != AMONG, "label"], elo.loc[elo["elo_side"] != AMONG, "elo_side"]))
    return ComputedSummary(
        n_models=len(rows), n_beyond_gap=len(beyond), beyond_gap=beyond,
        min_foundations_beyond=None if n_beyond.empty else int(n_beyond.min()),
        max_foundations_beyond=None if n_beyond.empty else int(n_beyond.max()),
        max_tau=None if top is None else float(top["nearest_tau"]),
        max_tau_model=None if top is None else str(top["label"]),
        max_tau_reference=None if top is None else str(top["nearest"]), lowest_paper_tau=lowest_paper_tau,
        n_below_paper_tau=(0 if lowest_paper_tau is None else int((taus < lowest_paper_tau).sum())),
        n_elo=len(elo), elo_beyond=elo_beyond, indistinguishable=_labels(rows, "indistinguishable"),
        beyond={r.label: f"{int(r.n_beyond)} of {int(r.n_numbers)} (null: {r.null_beyond_median:g}, at most "
                         f"{int(r.null_beyond_max)})" for r in rows.itertuples()
                if getattr(r, "n_beyond", None) is not None and r.n_beyond == r.n_beyond})


def _labels(rows: pd.DataFrame, flag: str) -> list[str]:
    """The labels of the rows whose ``flag`` column is True (rows made before #66 have none)."""
    return rows.loc[rows[flag].fillna(False).astype(bool), "label"].tolist() if flag in rows else []


def trained(asked, diffs: pd.DataFrame, missing: dict[str, str]) -> Trained:
    """The section of the base-to-RM diffs (:func:`rmbook.chapters.value_cards.gallery.pair_diffs`)."""
    pairs = []
    for (base, rm), d in diffs.groupby(["base", "rm"], sort=False):
        gaps = d.set_index("measure")
        judged = d[d["outside_noise"].notna()]
        moved = judged[judged["outside_noise"].astype(bool)]["measure"].tolist()
        pairs.append(TrainedPair(
            base=base, rm=rm, gap_negative_base=gaps.loc["agency − communion gap, negative prompts", "a"],
            gap_negative_rm=gaps.loc["agency − communion gap, negative prompts", "b"],
            gap_positive_base=gaps.loc["agency − communion gap, positive prompts", "a"],
            gap_positive_rm=gaps.loc["agency − communion gap, positive prompts", "b"],
            n_judged=len(judged), n_outside=len(moved), outside=moved))
    return Trained(asked=list(asked), pairs=pairs, missing=dict(missing))


def chapter_results(mode: str, cards: list[ValueCard], paper: pd.DataFrame, computed: pd.DataFrame,
                    summary: ComputedSummary | None, trained: Trained) -> ValueCardsResults:
    """The page's results from the paper RMs' rows, the computed models' rows (and their :func:`computed_summary`)
    and the cards they came from."""
    rows = pd.concat([paper, computed], ignore_index=True).reindex(columns=list(CardRow.model_fields))
    rows = rows.astype(object).where(rows.notna(), None)  # a row made before #66 has no null or intervals
    rate = cards[0].base_rate
    return ValueCardsResults(mode=mode, kind=cards[0].kind, prompts=cards[0].prompts,
                             n_paper_beyond_gap=n_beyond_gap(paper), rows=rows,
                             computed=summary, trained=trained, base_rate=rate.per_model if rate else {},
                             base_rate_numbers=rate.n_numbers if rate else 0, base_rate_mean=rate.mean if rate else None)


def rows_frame(paper: pd.DataFrame, computed: pd.DataFrame) -> pd.DataFrame:
    """The page's card rows as one frame (for its chart and table): the paper RMs', then the computed models'."""
    return pd.concat([paper, computed.reindex(columns=paper.columns)], ignore_index=True)
