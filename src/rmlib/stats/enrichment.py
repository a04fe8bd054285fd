"""Which labels (topics, themes) are over- or under-represented among flagged items? A permutation test over items,
optionally within strata, with Benjamini-Hochberg FDR across labels -- for one set of flagged items, or for several
(one per prompt) with the FDR across labels x sets, so that opposite effects in two sets are not averaged away."""
from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from rmlib.stats.columns import require_columns

__all__ = ["topic_enrichment", "topic_enrichment_by", "rank_strata"]


def topic_enrichment(labels: pd.DataFrame, flagged: Iterable[str], *, item: str = "item", topic: str = "topic",
                     universe: Iterable[str] | None = None, strata: pd.Series | None = None, n_resamples: int = 9999,
                     seed: int = 0, alpha: float = 0.05) -> pd.DataFrame:
    """Which topics are over- or under-represented among the ``flagged`` items? A permutation test over items.

    ``labels`` has one row per item x topic (an item may carry several topics, e.g. themes). ``universe`` is the set
    of items compared (default: the items in ``labels``); items in it without a label count as non-members of every
    topic. Leave out items that could not be labelled at all (no WordNet noun), so the comparison is among items
    that have a topic. Flagged items outside the universe are ignored. The observed statistic per topic is the
    number of flagged items carrying it. The null reassigns the flag among items at random, keeping the number of
    flagged items -- within each stratum when ``strata`` (a Series item -> stratum) is given, e.g. deciles of the
    human rank, so that topics people rate highly are not found 'undervalued' just because only highly rated items
    have room to fall. Two-sided p = 2 x the smaller one-sided permutation p (capped at 1), then BH-FDR across
    topics (statsmodels). Each p is a Monte Carlo estimate, so it carries its standard error (``p_se``: twice the
    binomial SE of the smaller one-sided p over ``n_resamples``), and the FDR-adjusted p its SE scaled alike
    (``p_fdr_se`` = p_se × p_fdr / p), so that a caller can tell a p too close to alpha to decide.

    Returns topic, n_items, n_flagged, expected (mean under the null), ratio (n_flagged / expected), null_low /
    null_high (2.5% and 97.5% of the null count), p_over, p_under, p, p_se, p_fdr, p_fdr_se, direction
    ('over'|'under'|'' when p_fdr >= alpha); sorted by p.
    """
    from statsmodels.stats.multitest import multipletests

    require_columns(labels, [item, topic])
    lab = labels[[item, topic]].dropna().drop_duplicates()
    items = pd.Index(pd.unique(pd.Series(list(universe)))) if universe is not None else pd.Index(lab[item].unique())
    outside = ~lab[item].isin(items)
    if outside.any():
        raise ValueError(f"{int(outside.sum())} labelled items are not in the universe, "
                         f"e.g. {lab.loc[outside, item].iloc[0]!r}")
    flags = items.isin(list(flagged))
    if not flags.any():
        raise ValueError("no flagged item has a topic")
    if flags.all():
        raise ValueError("every item is flagged: nothing to compare against")
    topics = pd.Index(sorted(lab[topic].unique()))
    member = np.zeros((len(items), len(topics)), dtype=np.int32)
    member[items.get_indexer(lab[item]), topics.get_indexer(lab[topic])] = 1
    observed = flags.astype(np.int32) @ member
    null = _null_counts(flags, member, _strata_groups(items, strata), n_resamples, np.random.default_rng(seed))
    p_over = (1 + (null >= observed).sum(axis=0)) / (1 + n_resamples)
    p_under = (1 + (null <= observed).sum(axis=0)) / (1 + n_resamples)
    p = np.minimum(1.0, 2 * np.minimum(p_over, p_under))
    p_se = _p_se(np.minimum(p_over, p_under), n_resamples)
    p_fdr = multipletests(p, alpha=alpha, method="fdr_bh")[1]
    expected = null.mean(axis=0)
    out = pd.DataFrame({
        topic: topics, "n_items": member.sum(axis=0), "n_flagged": observed, "expected": expected,
        "ratio": np.where(expected > 0, observed / np.where(expected > 0, expected, 1), np.nan),
        "null_low": np.quantile(null, 0.025, axis=0), "null_high": np.quantile(null, 0.975, axis=0),
        "p_over": p_over, "p_under": p_under, "p": p, "p_se": p_se, "p_fdr": p_fdr,
        "p_fdr_se": _scaled_se(p_se, p, p_fdr)})
    out["direction"] = np.where(out["p_fdr"] < alpha, np.where(observed > expected, "over", "under"), "")
    return out.sort_values(["p", topic], ignore_index=True)


def _p_se(one_sided: np.ndarray, n_resamples: int) -> np.ndarray:
    """The Monte Carlo standard error of a two-sided p = 2 × the smaller one-sided p, estimated from
    ``n_resamples`` resamples."""
    return 2 * np.sqrt(one_sided * (1 - one_sided) / n_resamples)


def _scaled_se(p_se, p, p_fdr):
    """The SE of an FDR-adjusted p, scaled from the raw p's: p_se × p_fdr / p (the BH map is linear in each p)."""
    p, p_fdr = np.asarray(p, float), np.asarray(p_fdr, float)
    return np.asarray(p_se, float) * np.divide(p_fdr, p, out=np.ones_like(p), where=p > 0)


def _strata_groups(items: pd.Index, strata: pd.Series | None) -> list[np.ndarray]:
    """The positions of the items in each stratum (one group of all items without strata)."""
    if strata is None:
        return [np.arange(len(items))]
    s = pd.Series(strata).reindex(items)
    if s.isna().any():
        raise ValueError(f"strata lacks {int(s.isna().sum())} items")
    return [np.flatnonzero(s.to_numpy() == v) for v in pd.unique(s)]


def _null_counts(flags: np.ndarray, member: np.ndarray, groups: list[np.ndarray], n_resamples: int,
                 rng: np.random.Generator) -> np.ndarray:
    """``n_resamples`` x topics: how many flagged items carry each topic when the flags are shuffled among the items
    of each group (the number flagged in each group kept), in batches that bound the memory."""
    null = np.zeros((n_resamples, member.shape[1]), dtype=np.int32)
    batch = max(1, min(n_resamples, int(2e7 // max(1, len(flags)))))
    for start in range(0, n_resamples, batch):
        b = min(batch, n_resamples - start)
        perm = np.zeros((b, len(flags)), dtype=np.int32)
        for g in groups:
            k = int(flags[g].sum())
            if k == 0:
                continue
            keys = rng.random((b, len(g)))
            chosen = np.argpartition(keys, k - 1, axis=1)[:, :k] if k < len(g) else np.tile(np.arange(len(g)), (b, 1))
            perm[np.repeat(np.arange(b), chosen.shape[1]), g[chosen.ravel()]] = 1
        null[start:start + b] = perm @ member
    return null


def topic_enrichment_by(labels: pd.DataFrame, flagged: Mapping[str, Iterable[str]], *, group: str = "prompt",
                        topic: str = "topic", alpha: float = 0.05, **kwargs) -> pd.DataFrame:
    """:func:`topic_enrichment` separately for each set of flagged items (e.g. the most undervalued items under each
    prompt), with one Benjamini-Hochberg FDR across all topic x set tests.

    Why separately: a topic over-represented under one prompt and under-represented under another shows up as
    nothing (or as the larger side only) when the flagged items of all prompts are pooled. Why one FDR: the claim
    'theme T holds on prompt P' is read for every T and P, so the family is topics x sets. Each set is tested
    against the same ``universe`` and ``strata`` (``kwargs`` go to :func:`topic_enrichment`; the permutation seed is
    the same for every set). Returns the columns of :func:`topic_enrichment` plus ``group`` (the set's key), with
    ``p_fdr_within`` (the FDR within the set alone) and ``p_fdr`` / ``direction`` from the joint FDR; sorted by
    set, then p.
    """
    from statsmodels.stats.multitest import multipletests

    if not flagged:
        raise ValueError("no set of flagged items given")
    parts = [topic_enrichment(labels, items, topic=topic, alpha=alpha, **kwargs).assign(**{group: key})
             for key, items in flagged.items()]
    out = pd.concat(parts, ignore_index=True).rename(columns={"p_fdr": "p_fdr_within"})
    out["p_fdr"] = multipletests(out["p"], alpha=alpha, method="fdr_bh")[1]
    out["p_fdr_se"] = _scaled_se(out["p_se"], out["p"], out["p_fdr"])
    out["direction"] = np.where(out["p_fdr"] < alpha,
                                np.where(out["n_flagged"] > out["expected"], "over", "under"), "")
    order = {k: i for i, k in enumerate(flagged)}
    return (out.assign(_o=out[group].map(order)).sort_values(["_o", "p", topic]).drop(columns="_o")
            [[group, *[c for c in out.columns if c != group]]].reset_index(drop=True))


def rank_strata(values: pd.Series, n: int = 10) -> pd.Series:
    """Quantile bins (1..n) of ``values`` (e.g. each item's human rank), for stratified permutation."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if n == 1:
        return pd.Series(1, index=values.index)
    return pd.Series(pd.qcut(values.rank(method="first"), n, labels=False) + 1, index=values.index)

