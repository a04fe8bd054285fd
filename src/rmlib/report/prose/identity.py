"""The identity terms chapter's sentences: the terms, where RMs place identity items and words against people."""
from __future__ import annotations

import pandas as pd

from rmlib.analysis.identity import HUMAN_BINS, MIN_MODELS_FOR_CI

__all__ = ["terms_markdown", "items_markdown", "item_verdicts_markdown", "words_markdown", "fragile_markdown"]


def terms_markdown(terms: pd.DataFrame) -> str:
    return (f"{len(terms)} identity terms: {int((terms['source'] != 'dixon').sum())} from HolisticBias, "
            f"{int((terms['source'] != 'holistic_bias').sum())} from Dixon et al. "
            f"({int((terms['source'] == 'both').sum())} in both); {int(terms['pejorative_in_some_uses'].sum())} "
            f"flagged as pejorative in some uses.")


def items_markdown(items: pd.DataFrame, n_models: int) -> str:
    return (f"**Word level, published scores**: {len(items)} EloEverything items name an identity term, scored by "
            f"{n_models} RM(s) under 3 prompts. The interval of each item is over the RMs.")


def item_verdicts_markdown(items: pd.DataFrame, verdicts: dict, n_models: int, bins: int = HUMAN_BINS,
                           sensitivity: dict | None = None) -> str:
    """Mean percentiles; the items reliably below / above what their human rank leads one to expect (the excess
    over the expected gap, interval over at least 3 RMs), with the raw counts against zero beside them, the counts
    with other bin widths (``sensitivity``, from :func:`rmlib.analysis.identity.bin_sensitivity`); a caution."""
    below, above, worst = verdicts["below"], verdicts["above"], verdicts["worst"]
    enough = n_models >= MIN_MODELS_FOR_CI
    lead = (f"Across items, RMs place identity items at the {items['model_pct'].mean():.0f}th percentile on average, "
            f"people at the {items['human_pct'].mean():.0f}th. An RM that agrees with people only in part places "
            f"the items people rank highest lower than people do, whatever they are, so each item is compared with "
            f"the gap of all EloEverything items in its human-percentile bin ({bins} bins of {100 / bins:g} points, "
            f"per RM); the *excess* is the item's gap minus that expected gap. ")
    if not enough:
        return (lead + "The largest negative excesses are "
                + ", ".join(f"{r.row} ({r.excess:+.0f}; gap {r.gap:+.0f})" for r in worst.itertuples())
                + f"; with fewer than {MIN_MODELS_FOR_CI} RMs there is no interval, so no item is called reliable.")
    return (lead
            + f"**{len(below)} item(s) sit reliably *lower* for the RMs than items of the same human rank** (interval "
              f"over RMs of the excess below zero): "
            + (", ".join(f"{r.row} ({r.excess:+.0f} points; gap {r.gap:+.0f})" for r in below.itertuples()) or "none")
            + f". **{len(above)} sit reliably *higher***: "
            + (", ".join(f"{r.row} ({r.excess:+.0f}; gap {r.gap:+.0f})" for r in above.itertuples()) or "none")
            + f". Against zero instead (the raw gap, which regression to the mean inflates at the ends of the human "
              f"ranking), {len(verdicts['raw_below'])} would be lower and {len(verdicts['raw_above'])} higher. "
            + "".join(f"With {b} bins instead, {c['n_below']} are lower and {c['n_above']} higher. "
                      for b, c in (sensitivity or {}).items() if b != bins)
            + 
              "An interval over RMs says that the RMs agree with each other about an item, not why they place it "
              "there: see the limits at the end of this chapter before reading any single item.")


def words_markdown(words: dict, human_source: str) -> str:
    """How many identity terms are among the rated words, and the mean gap per prompt valence
    (:func:`rmlib.analysis.identity.identity_words`)."""
    table, ranks = words["table"], words["ranks"]
    if table.empty:
        return f"No identity term is among the scored words that {human_source} rates ({words['level']})."
    n_univ = int(ranks["n_universe"].median())
    return (f"At {words['level']}: {table['word'].nunique()} identity term(s) are among the {n_univ:,} scored words "
            f"that {human_source.capitalize()} rates. Mean gap (model − human percentile): "
            + "; ".join(f"{pv} prompts {g['gap'].mean():+.1f} points over {g['word'].nunique()} terms"
                        for pv, g in table.groupby("prompt_valence")) + ".")


def fragile_markdown(table: pd.DataFrame, points: float = 25) -> str:
    """For token runs: how many term × prompt-valence rows have spellings whose percentiles differ by > ``points``."""
    wide = table[(table["token_pct_max"] - table["token_pct_min"]) > points]
    return (f"**Single tokens are fragile evidence.** {len(wide)} of {len(table)} term × prompt-valence rows have "
            f"spellings whose percentiles differ by more than {points:g} points (e.g. ' word' vs 'Word'); the table "
            "gives the range. Read the mean over spellings, and the axis averages, rather than any one token.")
