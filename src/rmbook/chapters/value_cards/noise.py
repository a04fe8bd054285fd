"""How much of a card is noise: its agreement with the paper RMs and with people as intervals over words and prompts,
a null model (the model's own rewards shuffled over the words) with the "beyond" labels and the agreement it gets,
and the rate at which "beyond" arises among the paper RMs themselves, each placed among the other nine (#66).

**The null.** The model's rewards shuffled over its words, one shuffle for every prompt: each prompt keeps its
rewards and the model keeps how alike its prompts are, and only which word gets which reward is lost, which is the
hypothesis that the rewards say nothing about the words. It needs no second scoring pass. A re-initialised head was
the other choice (#66); tried on the random-weights RMs of the card's test, three fresh heads on each gave a best τ
with the paper RMs of −0.00 to +0.05, narrower than the shuffles' (their upper 2.5% at +0.06 to +0.08), and each
head costs the card's whole scoring again. Random weights are not exchangeable over words (a random RM's rewards
follow the words' letters, which the paper RMs' also do a little: the two test RMs agree with them at best τ 0.07 and
0.11), so a model is called indistinguishable from the null when its *interval* of agreement, over words and prompts,
reaches into the null's range, not its point.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from rmbook.chapters.value_cards.measures import (GAP_SIDES, RANK_SIDES, big_two_gaps, foundation_intervals,
                                                  foundation_ranks, gap_intervals, interval_placement, rank_table)
from rmlib.stats import require_columns
from rmlib.stats.resampling import (crossed_indices, kendall_draws, percentile_interval, shuffled_kendall)

__all__ = ["N_SHUFFLES", "AGREEMENT_RESAMPLES", "NULL_METHOD", "agreement_arrays", "tau_interval", "rho_interval", "null_tau", "null_rho",
           "null_beyond", "beyond_count", "indistinguishable", "base_rate", "null_section"]

N_SHUFFLES = 199  # shuffles of the model's words for the null (each one: its numbers and its "beyond" labels)
AGREEMENT_RESAMPLES = 199  # draws for the intervals of τ and ρ: the verdict reads their ends against the null's, and
                           # τ's draws cost a quadratic form per prompt and paper RM (seconds each hundred)
NULL_METHOD = "the model's rewards shuffled over its words, one shuffle for every prompt"


def agreement_arrays(scores: pd.DataFrame, reference: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The model's rewards (prompts × words) and the paper RMs' (prompts × words × paper RM) on the prompts and
    words both scored, sorted, and the paper RMs' names."""
    require_columns(scores, ["prompt_key", "word", "reward"], "scores")
    require_columns(reference, ["model", "prompt_key", "word", "reward"], "reference")
    own = scores.pivot_table(index="prompt_key", columns="word", values="reward")
    ref = reference.pivot_table(index=["prompt_key", "word"], columns="model", values="reward")
    prompts = sorted(set(own.index) & set(ref.index.get_level_values(0)))
    words = sorted(set(own.columns) & set(ref.index.get_level_values(1)))
    cube = np.stack([ref.loc[p].reindex(words).to_numpy(float) for p in prompts])
    return own.loc[prompts, words].to_numpy(float), cube, list(ref.columns)


def tau_interval(scores: pd.DataFrame, reference: pd.DataFrame, *, n_resamples: int = 999, seed: int = 0,
                 confidence: float = 0.95) -> dict:
    """The model's highest Kendall τ with a paper RM (within prompts, averaged over them, as the card's agreement),
    with a percentile interval over prompts and words (:func:`rmlib.stats.resampling.kendall_draws`; each draw's
    highest τ)."""
    a, b, names = agreement_arrays(scores, reference)
    full = kendall_draws(a, b, np.arange(len(a))[None], np.arange(a.shape[1])[None])[0]
    rows, cols = crossed_indices(*a.shape, n_resamples, seed)
    lo, hi = percentile_interval(kendall_draws(a, b, rows, cols).max(axis=1), confidence)
    return {"tau": float(full.max()), "reference": names[int(full.argmax())], "ci_low": lo, "ci_high": hi}


def _elo_ranks(rewards: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The model's ranks of the items within each prompt (prompts × items) and people's ranks of them."""
    require_columns(rewards, ["item", "prompt_key", "elo_score", "reward"], "rewards")
    wide = rewards.pivot_table(index="prompt_key", columns="item", values="reward").sort_index()
    elo = rewards.drop_duplicates("item").set_index("item")["elo_score"].reindex(wide.columns)
    return wide.rank(axis=1).to_numpy(float), elo.rank().to_numpy(float)


def _mean_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r between each row of ``x`` (..., prompts, items) and ``y`` (..., items), averaged over prompts."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = (y - y.mean(axis=-1, keepdims=True))[..., None, :]
    r = (xc * yc).sum(axis=-1) / np.sqrt((xc ** 2).sum(axis=-1) * (yc ** 2).sum(axis=-1))
    return r.mean(axis=-1)


def rho_interval(rewards: pd.DataFrame, *, n_resamples: int = 999, seed: int = 0, confidence: float = 0.95) -> dict:
    """Spearman's ρ between the model's rewards of the EloEverything items and people's ratings, within each prompt
    and averaged (the card's ρ), with a percentile interval over prompts and items (ranks kept from the whole set,
    Pearson's r of the ranks on each draw)."""
    x, y = _elo_ranks(rewards)
    rows, cols = crossed_indices(*x.shape, n_resamples, seed)
    draws = _mean_pearson(x[rows[:, :, None], cols[:, None, :]], y[cols])
    lo, hi = percentile_interval(draws, confidence)
    return {"rho": float(_mean_pearson(x, y)), "ci_low": lo, "ci_high": hi}


def _shuffles(n_words: int, n_shuffles: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([rng.permutation(n_words) for _ in range(n_shuffles)])


def null_tau(scores: pd.DataFrame, reference: pd.DataFrame, *, n_shuffles: int = N_SHUFFLES, seed: int = 0) -> np.ndarray:
    """The null's highest τ with a paper RM, one per shuffle (:data:`NULL_METHOD`)."""
    a, b, _ = agreement_arrays(scores, reference)
    return shuffled_kendall(a, b, n_shuffles, seed).max(axis=1)


def null_rho(rewards: pd.DataFrame, *, n_shuffles: int = N_SHUFFLES, seed: int = 0) -> np.ndarray:
    """The null's ρ with people's ratings, one per shuffle of the items (the same shuffle under every prompt)."""
    x, y = _elo_ranks(rewards)
    orders = _shuffles(x.shape[1], n_shuffles, seed)
    return _mean_pearson(x[:, orders].transpose(1, 0, 2), y[None, :].repeat(n_shuffles, axis=0))


def _beyond(value: float, offsets: tuple[float, float], reference: pd.Series) -> bool:
    lo, hi = value + offsets[0], value + offsets[1]
    return bool(hi < reference.min() or lo > reference.max())


def null_beyond(scores: pd.DataFrame, group: str, numbers: pd.DataFrame, reference: pd.DataFrame, *,
                n_shuffles: int = N_SHUFFLES, seed: int = 0) -> np.ndarray:
    """How many of a card's numbers the null places beyond every paper RM, per shuffle. ``scores``: the model's
    rewards with ``group`` (category: the gaps; foundation: the foundation ranks); ``numbers``: the card's intervals
    of them (:func:`gap_intervals` or :func:`foundation_intervals`); ``reference``: the paper RMs' numbers (model,
    valence, [foundation], value column ``gap`` or ``median_rank``). A shuffle moves the words' labels, one shuffle
    for every prompt and valence; the null's number gets the model's own interval around it (its offsets), and is
    beyond when that whole interval is, the card's rule."""
    value = "gap" if group == "category" else "median_rank"
    tables = {v: rank_table(one, group) for v, one in scores.groupby("valence", sort=True)}
    orders = _shuffles(len(next(iter(tables.values()))[1]), n_shuffles, seed)
    counts = np.zeros(n_shuffles, dtype=int)
    for row in numbers.itertuples():
        table, labels = tables[row.valence]
        ranks = table.to_numpy()
        key = (reference["valence"] == row.valence) & (
            True if group == "category" else reference["foundation"] == row.foundation)
        ref = reference.loc[key].set_index("model")[value]
        point = getattr(row, value)
        offsets = (row.ci_low - point, row.ci_high - point)
        for k, order in enumerate(orders):
            moved = labels.to_numpy()[order]
            if group == "category":
                null = (np.median(ranks[:, moved == "Agency"], axis=1) - np.median(ranks[:, moved == "Communion"],
                                                                                   axis=1)).mean()
            else:
                null = np.median(ranks[:, moved == row.foundation], axis=1).mean()
            counts[k] += _beyond(null, offsets, ref)
    return counts


def beyond_count(placements) -> int:
    """How many of a card's placed numbers are beyond every paper RM (their whole interval)."""
    return sum(p["side"] != "among them" for p in placements)


def indistinguishable(tau: dict, null_taus: np.ndarray, rho: dict | None, null_rhos: np.ndarray | None,
                      confidence: float = 0.95) -> bool:
    """Whether the model cannot be told from the null: its interval of best τ with the paper RMs reaches the null's
    upper quantile, and (when the card has it) its interval of ρ with people overlaps the null's central range."""
    q = (1 - confidence) / 2
    tau_near = tau["ci_low"] <= float(np.quantile(null_taus, 1 - q))
    if rho is None or null_rhos is None:
        return bool(tau_near)
    lo, hi = np.quantile(null_rhos, [q, 1 - q])
    return bool(tau_near and rho["ci_low"] <= hi and rho["ci_high"] >= lo)


def _beyond_among_others(intervals: pd.DataFrame, reference: pd.DataFrame, model: str, keys: list[str], value: str,
                         sides) -> int:
    """How many of one paper RM's interval numbers fall wholly beyond the other paper RMs' values."""
    n = 0
    for row in intervals.itertuples():
        others = reference[reference["model"] != model]
        for k in keys:
            others = others[others[k] == getattr(row, k)]
        place = interval_placement(getattr(row, value), row.ci_low, row.ci_high, others.set_index("model")[value],
                                   sides)
        n += place["side"] != "among them"
    return n


def base_rate(big: pd.DataFrame, mfd: pd.DataFrame | None = None, *, n_resamples: int = 999, seed: int = 0) -> dict:
    """The leave-one-out base rate of "beyond" among the paper RMs (#66 item 3): each paper RM's gaps (and, with
    ``mfd``, foundation ranks) with their intervals over words and prompts, from its released scores (``big``,
    ``mfd``: the card's words and prompts), placed among the other nine by the card's rule. What a model drawn from
    the same population as the paper RMs would get."""
    gaps, ranks = big_two_gaps(big), None if mfd is None else foundation_ranks(mfd)
    per_model = {}
    for nickname, own in big.groupby("model", sort=True):
        n = _beyond_among_others(gap_intervals(own, n_resamples=n_resamples, seed=seed), gaps, nickname,
                                 ["valence"], "gap", GAP_SIDES)
        if mfd is not None:
            one = mfd[mfd["model"] == nickname]
            n += _beyond_among_others(foundation_intervals(one, n_resamples=n_resamples, seed=seed), ranks, nickname,
                                      ["foundation", "valence"], "median_rank", RANK_SIDES)
        per_model[nickname] = int(n)
    n_numbers = 2 + (0 if mfd is None else int(ranks[["foundation", "valence"]].drop_duplicates().shape[0]))
    mean = float(np.mean(list(per_model.values())))
    return {"n_numbers": n_numbers, "per_model": per_model, "mean": mean, "rate": mean / n_numbers}


def null_section(scores: pd.DataFrame, reference: pd.DataFrame, card: dict, *,
                 foundations: tuple[pd.DataFrame, pd.DataFrame] | None = None, elo_rewards: pd.DataFrame | None = None,
                 n_resamples: int = 999, seed: int = 0, n_shuffles: int = N_SHUFFLES) -> dict:
    """The card's :class:`rmbook.analysis.value_card.NullSection`, from the model's Big Two ``scores``, the paper
    RMs' ``reference``, the card's sections so far (``card``: gaps, placements, and on a standard card foundations,
    foundation_placements and foundation_reference), the MFD2 ``foundations`` (the model's, the paper RMs') and the
    model's EloEverything ``elo_rewards`` (item, prompt_key, elo_score, reward)."""
    draws = min(n_resamples, AGREEMENT_RESAMPLES)
    tau = tau_interval(scores, reference, n_resamples=draws, seed=seed)
    taus = null_tau(scores, reference, n_shuffles=n_shuffles, seed=seed)
    beyond = null_beyond(scores, "category", card["gaps"], big_two_gaps(reference), n_shuffles=n_shuffles, seed=seed)
    placed = list(card["placements"])
    if foundations is not None:
        beyond = beyond + null_beyond(foundations[0], "foundation", card["foundations"],
                                      card["foundation_reference"], n_shuffles=n_shuffles, seed=seed)
        placed += list(card["foundation_placements"])
    rho = rhos = None
    out = {}
    if elo_rewards is not None:
        rho = rho_interval(elo_rewards, n_resamples=draws, seed=seed)
        rhos = null_rho(elo_rewards, n_shuffles=n_shuffles, seed=seed)
        lo, hi = np.quantile(rhos, [0.025, 0.975])
        out = {"rho": rho["rho"], "rho_low": rho["ci_low"], "rho_high": rho["ci_high"], "null_rho_low": float(lo),
               "null_rho_high": float(hi)}
    return {"method": NULL_METHOD, "n_shuffles": n_shuffles, "n_numbers": len(placed),
            "model_beyond": beyond_count(placed), "beyond": beyond.tolist(), "tau": tau["tau"],
            "tau_reference": tau["reference"], "tau_low": tau["ci_low"], "tau_high": tau["ci_high"],
            "null_tau_median": float(np.median(taus)), "null_tau_high": float(np.quantile(taus, 0.975)),
            "indistinguishable": indistinguishable(tau, taus, rho, rhos), **out}
