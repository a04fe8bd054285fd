"""Many value cards side by side (the "Value cards" page): each paper RM's card from its released scores, placed among
the other nine by the same rule, the cards of computed models placed among all ten, one row per card that the page's
table shows and its results store, and what training did to a base LM's card (an RM rmlib trained from it: the
base's card and the RM's, diffed)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.analysis.choices import PUBLISHED_OR_COMPUTE
from rmbook.chapters.elo_misalignment.analysis import elo_scores
from rmbook.chapters.value_cards.build import (QUICK_PROMPTS, STANDARD_PROMPTS, card_from_scores, elo_extras,
                                               mfd2_words, reference_scores, spread_scores, value_card)
from rmbook.chapters.value_cards.diff import COLUMNS, diff_cards
from rmbook.chapters.value_cards.measures import ELO_ITEMS, elo_agreement, identity_elo_items
from rmbook.chapters.value_cards.noise import base_rate
from rmbook.analysis.value_card import KINDS, ValueCard
from rmlib import __version__
from rmlib.registry import get_spec, split_available

__all__ = ["MODES", "paper_rm_cards", "gallery_rows", "lowest_paper_tau", "n_beyond_gap", "trained_pairs",
           "pair_cards", "pair_diffs"]

MODES = PUBLISHED_OR_COMPUTE  # the page's run modes: the paper RMs' cards alone, or with computed models' cards
AMONG = "among them"


def paper_rm_cards(kind: str = "standard", *, n_resamples: int = 999, seed: int = 0) -> list[ValueCard]:
    """The card of each paper RM, computed from its released scores of the card's words and prompts and placed among
    the other nine: the same numbers the Big Two, moral-foundations and EloEverything chapters report for it, its
    most misvalued EloEverything items, its place on the map and where it places the identity items."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    prompts = QUICK_PROMPTS if kind == "quick" else STANDARD_PROMPTS
    big = reference_scores(prompts)
    mfd = reference_scores(prompts, "mfd2", words=mfd2_words()) if kind == "standard" else None
    elo = released = None
    if kind == "standard":
        released = elo_scores("published", None, n_items=ELO_ITEMS, extra_items=identity_elo_items())
        elo = elo_agreement(spread_scores(released), released.models, released.label)
    rate = base_rate(big, mfd, n_resamples=n_resamples, seed=seed)  # the same for every card: computed once
    cards = []
    for nickname, own in big.groupby("model", sort=True):
        others = big[big["model"] != nickname]
        foundations = None if mfd is None else (mfd[mfd["model"] == nickname], mfd[mfd["model"] != nickname])
        agreement = identity = rewards = None
        if elo is not None:
            misvalued, on_map, identity = elo_extras(released.scores, released.items, released.label, nickname)
            agreement = (elo[elo["model"] == nickname], elo[elo["model"] != nickname], misvalued, on_map)
            column = next(c for c, label in released.label.items() if label == nickname)
            rewards = spread_scores(released)[["item", "prompt_key", "elo_score", column]].rename(
                columns={column: "reward"})
        cards.append(card_from_scores(own, others, model=nickname, label=nickname,
                                      reward_kind=str(own["reward_kind"].iloc[0]), family=str(own["family"].iloc[0]),
                                      rmlib_version=__version__, n_resamples=n_resamples, seed=seed,
                                      foundations=foundations, elo=agreement, identity=identity, elo_rewards=rewards,
                                      base_rate=rate))
    return cards


def _by_valence(items, valence: str):
    return next(i for i in items if i.valence == valence)


def gallery_rows(cards: list[ValueCard], source: str) -> pd.DataFrame:
    """One row per card: its gaps and where they fall, its ranks of love and freedom, how many of its ten foundation
    numbers fall beyond the range of the models it was placed among, the paper RM it agrees with most, and its
    Spearman ρ with people's EloEverything ratings, and its mean excess over the items that name groups of people.
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
                     "n_beyond": c.null.model_beyond if c.null else None,
                     "n_numbers": c.null.n_numbers if c.null else None,
                     "null_beyond_median": float(np.median(c.null.beyond)) if c.null else None,
                     "null_beyond_max": max(c.null.beyond) if c.null else None,
                     "indistinguishable": c.null.indistinguishable if c.null else None,
                     "gap_negative_low": _by_valence(c.gaps, "negative").ci_low,
                     "gap_negative_high": _by_valence(c.gaps, "negative").ci_high,
                     "gap_positive_low": _by_valence(c.gaps, "positive").ci_low,
                     "gap_positive_high": _by_valence(c.gaps, "positive").ci_high,
                     "weights": c.provenance.weights if c.provenance else None,
                     "nearest": c.agreement[0].reference if c.agreement else None,
                     "nearest_tau": c.agreement[0].tau if c.agreement else None,
                     "elo_rho": c.elo.rho if c.elo is not None else None,
                     "elo_side": c.elo_placement.side if c.elo_placement is not None else None,
                     "identity_excess": c.identity.excess if c.identity is not None else None,
                     "identity_side": c.identity.placement.side if c.identity is not None else None})
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


def trained_pairs(rm_ids) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """([(base model, trained RM)], {RM: why it is missing}) for ``rm_ids``, RMs rmlib trained (``local:`` ids): the
    base is the one its run file names. An RM not trained on this machine yet is reported, not fatal."""
    present, missing = split_available(rm_ids)
    pairs = []
    for rm in present:
        base = get_spec(rm).extra.get("base_model") if rm.startswith("local:") else None
        if not base:
            raise ValueError(f"{rm} is not an RM that rmlib trained (no run file naming its base model): give "
                             "local:<name> ids of the finetuning chapter's runs")
        pairs.append((base, rm))
    return pairs, missing


def pair_cards(pairs: list[tuple[str, str]], known: list[ValueCard], **card_args) -> list[tuple[ValueCard, ValueCard]]:
    """The cards of each (base, RM) pair, made by :func:`value_card` with ``card_args``; a card already in ``known``
    (the page's computed models) is reused."""
    have = {c.model: c for c in known}
    return [tuple(have.get(m) or value_card(m, **card_args) for m in pair) for pair in pairs]


def pair_diffs(cards: list[tuple[ValueCard, ValueCard]]) -> pd.DataFrame:
    """:func:`diff_cards` of each (base LM's card, its trained RM's card), stacked with the pair's labels. Ranks
    compare across reward kinds (an LM's log-prob, an RM's score), where raw rewards would not."""
    frames = [diff_cards(base, rm).assign(base=base.label, rm=rm.label) for base, rm in cards]
    if not frames:
        return pd.DataFrame(columns=["base", "rm", *COLUMNS])
    return pd.concat(frames, ignore_index=True)[["base", "rm", *COLUMNS]]
