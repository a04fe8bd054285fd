"""Many value cards side by side (the "Value cards" page): each paper RM's card from its released scores, placed among
the other nine by the same rule, the cards of computed models placed among all ten, and one row per card that the
page's table shows and its results store."""
from __future__ import annotations

import pandas as pd

from rmlib import __version__
from rmbook.analysis.card.build import (QUICK_PROMPTS, STANDARD_PROMPTS, card_from_scores, mfd2_words,
                                        reference_scores)
from rmbook.analysis.card.record import KINDS, ValueCard
from rmbook.analysis.choices import PUBLISHED_OR_COMPUTE

__all__ = ["MODES", "paper_rm_cards", "gallery_rows", "lowest_paper_tau", "n_beyond_gap"]

MODES = PUBLISHED_OR_COMPUTE  # the page's run modes: the paper RMs' cards alone, or with computed models' cards
AMONG = "among them"


def paper_rm_cards(kind: str = "standard", *, n_resamples: int = 999, seed: int = 0) -> list[ValueCard]:
    """The card of each paper RM, computed from its released scores of the card's words and prompts and placed among
    the other nine: the same numbers the Big Two and moral-foundations chapters report for it."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    prompts = QUICK_PROMPTS if kind == "quick" else STANDARD_PROMPTS
    big = reference_scores(prompts)
    mfd = reference_scores(prompts, "mfd2", words=mfd2_words()) if kind == "standard" else None
    cards = []
    for nickname, own in big.groupby("model", sort=True):
        others = big[big["model"] != nickname]
        foundations = None if mfd is None else (mfd[mfd["model"] == nickname], mfd[mfd["model"] != nickname])
        cards.append(card_from_scores(own, others, model=nickname, label=nickname,
                                      reward_kind=str(own["reward_kind"].iloc[0]), family=str(own["family"].iloc[0]),
                                      rmlib_version=__version__, n_resamples=n_resamples, seed=seed,
                                      foundations=foundations))
    return cards


def _by_valence(items, valence: str):
    return next(i for i in items if i.valence == valence)


def gallery_rows(cards: list[ValueCard], source: str) -> pd.DataFrame:
    """One row per card: its gaps and where they fall, its ranks of love and freedom, how many of its ten foundation
    numbers fall beyond the range of the models it was placed among, and the paper RM it agrees with most.
    ``source`` says where its rewards came from ("released scores" or "computed")."""
    rows = []
    for c in cards:
        ranks = {w.word: w.rank for w in c.words if w.model == c.model}
        neg, pos = _by_valence(c.placements, "negative"), _by_valence(c.placements, "positive")
        rows.append({"label": c.label, "model": c.model, "source": source, "reward_kind": c.reward_kind,
                     "family": c.family, "kind": c.kind, "gap_negative": neg.gap, "side_negative": neg.side,
                     "gap_positive": pos.gap, "side_positive": pos.side, "love": ranks.get("love"),
                     "freedom": ranks.get("freedom"), "n_words": c.n_words,
                     "n_foundations_beyond": (sum(p.side != "among them" for p in c.foundation_placements)
                                              if c.foundation_placements else None),
                     "nearest": c.agreement[0].reference if c.agreement else None,
                     "nearest_tau": c.agreement[0].tau if c.agreement else None})
    return pd.DataFrame(rows)


def lowest_paper_tau(cards: list[ValueCard]) -> float | None:
    """The lowest τ between two paper RMs (each paper RM's card holds its τ with the other nine), the bar a computed
    model's agreement is read against; None for quick cards."""
    taus = [t.tau for c in cards for t in c.agreement]
    return min(taus) if taus else None


def n_beyond_gap(rows: pd.DataFrame) -> int:
    """How many of the cards in ``rows`` have a gap beyond all the models they were placed among, under at least one
    prompt valence."""
    return int(((rows["side_negative"] != AMONG) | (rows["side_positive"] != AMONG)).sum())
