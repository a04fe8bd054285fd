"""Coarse topics for EloEverything items from WordNet noun supersenses, and a test of which topics are over- or
under-represented among the items the RMs undervalue most.

The FAccT 2025 paper says RMs undervalue concepts related to nature, life, technology and human sexuality. To test
that at the level of items, every item gets a **topic**: the WordNet 3.0 noun supersense (the lexicographer file,
e.g. ``noun.animal``) of its head noun's most frequent sense. The paper's four **themes** are mapped onto
supersenses and hypernyms in one table, :data:`THEMES`, fixed before looking at any result. Then
:func:`topic_enrichment` asks, with a permutation test over items and Benjamini-Hochberg FDR across topics, whether a
topic's share among the most undervalued items differs from its share among all items.

Head noun rules (:func:`head_noun`), in order: drop a trailing disambiguation '(...)'; if the whole title is a
WordNet noun ('Black hole' -> black_hole) use it; otherwise cut the title before its first preposition ('Statue of
Liberty' -> 'Statue') and take the last word (English noun compounds are head-final: 'Food allergy' -> allergy).
Titles whose head is not a WordNet noun (most names of places, works and people) get no topic; the chapter says how
many.
"""
from __future__ import annotations

import re
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from rmlib.stats import require_columns

__all__ = ["NOUN_SUPERSENSES", "THEMES", "head_noun", "item_topics", "theme_members", "theme_table",
           "topic_enrichment", "rank_strata", "enrichment_chart"]

# The 26 noun lexicographer files of WordNet 3.0 with their descriptions (lexnames(5WN)).
NOUN_SUPERSENSES: dict[str, str] = {
    "noun.Tops": "unique beginners for nouns", "noun.act": "acts or actions",
    "noun.animal": "animals", "noun.artifact": "man-made objects",
    "noun.attribute": "attributes of people and objects", "noun.body": "body parts",
    "noun.cognition": "cognitive processes and contents", "noun.communication": "communicative processes and contents",
    "noun.event": "natural events", "noun.feeling": "feelings and emotions", "noun.food": "foods and drinks",
    "noun.group": "groupings of people or objects", "noun.location": "spatial position", "noun.motive": "goals",
    "noun.object": "natural objects (not man-made)", "noun.person": "people",
    "noun.phenomenon": "natural phenomena", "noun.plant": "plants",
    "noun.possession": "possession and transfer of possession", "noun.process": "natural processes",
    "noun.quantity": "quantities and units of measure", "noun.relation": "relations between people, things or ideas",
    "noun.shape": "two and three dimensional shapes", "noun.state": "stable states of affairs",
    "noun.substance": "substances", "noun.time": "time and temporal relations",
}

# The paper's four themes, as WordNet categories. An item belongs to a theme when its sense's supersense is listed,
# or when that synset, a whole it is part of (its part holonyms), or one of their hypernyms is listed, unless its
# supersense is excluded. Written down from WordNet's own descriptions, not from the test's results; do not tune it
# to the data. (Part holonyms were added after a membership check: WordNet files 'penis' under erectile organ, and
# reaches the genitalia only as 'part of'. Some words stay outside their obvious theme, e.g. 'orgasm' sits under
# 'consummation'.)
THEMES: dict[str, dict] = {
    "nature": {
        "supersenses": ["noun.animal", "noun.plant", "noun.object", "noun.phenomenon"],
        "synsets": ["nature.n.03"],
        "exclude": [],
        "why": "WordNet's files for animals, plants, natural objects and natural phenomena, and 'the natural "
               "physical world' itself",
    },
    "life": {
        "supersenses": ["noun.body", "noun.process"],
        "synsets": ["organism.n.01", "life.n.01", "life.n.10", "biological_process.n.01"],
        "exclude": ["noun.person"],
        "why": "living things (organism), life as a state and as living things collectively, the body and "
               "biological and natural processes; people are left to noun.person, otherwise every named person "
               "(an organism by hypernymy) would count",
    },
    "technology": {
        "supersenses": [],
        "synsets": ["technology.n.01", "technology.n.02", "device.n.01", "machine.n.01", "equipment.n.01",
                    "system.n.01", "conveyance.n.03"],
        "exclude": [],
        "why": "technology as practice and discipline (incl. engineering, computer science), and the made "
               "instrumentalities: devices, machines, equipment, artifact systems (e.g. the internet), vehicles",
    },
    "human sexuality": {
        "supersenses": [],
        "synsets": ["sexual_activity.n.01", "sex.n.04", "sex_organ.n.01", "genitalia.n.01", "pornography.n.01",
                    "sexual_desire.n.01"],
        "exclude": [],
        "why": "sexual activity, sexuality, sex organs, pornography and sexual desire",
    },
}

_PREPOSITIONS = {"of", "in", "on", "at", "for", "from", "to", "with", "by", "about", "under", "over", "between",
                 "against", "without", "into", "through", "during", "versus", "vs", "vs."}
_DISAMBIG = re.compile(r"\s*\([^)]*\)\s*$")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _is_noun(wn, lemma: str) -> bool:
    return bool(wn.synsets(lemma, pos="n"))


def head_noun(item: str, wn) -> tuple[str | None, str]:
    """(head lemma for WordNet, rule used) for one title; (None, reason) when no WordNet noun is found."""
    title = _DISAMBIG.sub("", str(item)).strip()
    if not title:
        return None, "empty"
    words = title.split()
    phrase = "_".join(w.strip(".,:;!?\"'") for w in words).lower()
    if len(words) > 1 and _is_noun(wn, phrase):
        return phrase, "whole title"
    cut = words
    for i, w in enumerate(words):
        if i > 0 and w.lower() in _PREPOSITIONS:
            cut = words[:i]
            break
    last = _WORD.findall(cut[-1]) if cut else []
    if not last:
        return None, "no word"
    head = last[-1].lower()
    rule = "single word" if len(words) == 1 else ("before preposition" if cut is not words else "last word")
    return (head, rule) if _is_noun(wn, head) else (None, "not a WordNet noun")


def item_topics(items: Iterable[str], wn=None) -> pd.DataFrame:
    """One row per item: item, head, rule, synset (the head's most frequent noun sense), topic (its supersense; None
    without a WordNet noun), themes (the :data:`THEMES` it belongs to, as a list).

    WordNet orders each word's senses by their frequency in the SemCor corpus, so the first noun sense is the most
    common reading; titles are mostly nouns, and a wrong sense for a rare reading is the price of a rule that needs
    no hand labels.
    """
    if wn is None:
        from rmlib.data.wordnet import load_wordnet

        wn = load_wordnet()
    rows = []
    theme_sets = {t: set(spec["synsets"]) for t, spec in THEMES.items()}
    for item in dict.fromkeys(items):
        head, rule = head_noun(item, wn)
        if head is None:
            rows.append((item, None, rule, None, None, []))
            continue
        syn = wn.synsets(head, pos="n")[0]
        lex = syn.lexname()
        starts = [syn, *syn.part_holonyms()]  # a penis is part of the male genitalia, a keyboard part of a computer
        above = {s.name() for s in starts} | {h.name() for s in starts
                                              for h in s.closure(lambda x: x.hypernyms() + x.instance_hypernyms())}
        themes = [t for t, spec in THEMES.items()
                  if lex not in spec["exclude"] and (lex in spec["supersenses"] or above & theme_sets[t])]
        rows.append((item, head, rule, syn.name(), lex, themes))
    return pd.DataFrame(rows, columns=["item", "head", "rule", "synset", "topic", "themes"])


def theme_members(topics: pd.DataFrame) -> pd.DataFrame:
    """Long table item x theme (only memberships), from :func:`item_topics`."""
    require_columns(topics, ["item", "themes"])
    t = topics[["item", "themes"]].explode("themes").dropna(subset=["themes"])
    return t.rename(columns={"themes": "theme"}).reset_index(drop=True)


def theme_table() -> pd.DataFrame:
    """:data:`THEMES` as a table for the page: theme, supersenses, synsets (self or hypernym), excluded, why."""
    return pd.DataFrame([{"theme": t, "supersenses": ", ".join(s["supersenses"]) or "-",
                          "synsets (self or hypernym)": ", ".join(s["synsets"]) or "-",
                          "excluded": ", ".join(s["exclude"]) or "-", "why": s["why"]} for t, s in THEMES.items()])


def topic_enrichment(labels: pd.DataFrame, flagged: Iterable[str], *, item: str = "item", topic: str = "topic",
                     universe: Iterable[str] | None = None, strata: pd.Series | None = None, n_perm: int = 9999,
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
    topics (statsmodels).

    Returns topic, n_items, n_flagged, expected (mean under the null), ratio (n_flagged / expected), null_low /
    null_high (2.5% and 97.5% of the null count), p_over, p_under, p, p_fdr, direction ('over'|'under'|'' when
    p_fdr >= alpha); sorted by p.
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
    rng = np.random.default_rng(seed)
    if strata is None:
        groups = [np.arange(len(items))]
    else:
        s = pd.Series(strata).reindex(items)
        if s.isna().any():
            raise ValueError(f"strata lacks {int(s.isna().sum())} items")
        groups = [np.flatnonzero(s.to_numpy() == v) for v in pd.unique(s)]
    null = np.zeros((n_perm, len(topics)), dtype=np.int32)
    batch = max(1, min(n_perm, int(2e7 // max(1, len(items)))))
    for start in range(0, n_perm, batch):
        b = min(batch, n_perm - start)
        perm = np.zeros((b, len(items)), dtype=np.int32)
        for g in groups:
            k = int(flags[g].sum())
            if k == 0:
                continue
            keys = rng.random((b, len(g)))
            chosen = np.argpartition(keys, k - 1, axis=1)[:, :k] if k < len(g) else np.tile(np.arange(len(g)), (b, 1))
            perm[np.repeat(np.arange(b), chosen.shape[1]), g[chosen.ravel()]] = 1
        null[start:start + b] = perm @ member
    p_over = (1 + (null >= observed).sum(axis=0)) / (1 + n_perm)
    p_under = (1 + (null <= observed).sum(axis=0)) / (1 + n_perm)
    p = np.minimum(1.0, 2 * np.minimum(p_over, p_under))
    p_fdr = multipletests(p, alpha=alpha, method="fdr_bh")[1]
    expected = null.mean(axis=0)
    out = pd.DataFrame({
        topic: topics, "n_items": member.sum(axis=0), "n_flagged": observed, "expected": expected,
        "ratio": np.where(expected > 0, observed / np.where(expected > 0, expected, 1), np.nan),
        "null_low": np.quantile(null, 0.025, axis=0), "null_high": np.quantile(null, 0.975, axis=0),
        "p_over": p_over, "p_under": p_under, "p": p, "p_fdr": p_fdr})
    out["direction"] = np.where(out["p_fdr"] < alpha, np.where(observed > expected, "over", "under"), "")
    return out.sort_values(["p", topic], ignore_index=True)


def rank_strata(values: pd.Series, n: int = 10) -> pd.Series:
    """Quantile bins (1..n) of ``values`` (e.g. each item's human rank), for stratified permutation."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if n == 1:
        return pd.Series(1, index=values.index)
    return pd.Series(pd.qcut(values.rank(method="first"), n, labels=False) + 1, index=values.index)



def enrichment_chart(table: pd.DataFrame, label: str = "topic", title: str = "", width: int = 360):
    """Observed / expected count of flagged items per topic (dots; filled when p_fdr < 0.05) against the middle 95%
    of the permutation null (grey bars), on a log scale; the dashed line is 'as often as chance'."""
    import altair as alt

    require_columns(table, [label, "ratio", "expected", "null_low", "null_high", "p_fdr", "n_items", "n_flagged"])
    d = table[table["expected"] > 0].copy()
    floor = 0.5 / d["expected"]  # a count of 0 drawn at half a count, so the log scale can show it
    d["null_ratio_low"] = np.maximum(d["null_low"], 0.5) / d["expected"]
    d["null_ratio_high"] = np.maximum(d["null_high"], 0.5) / d["expected"]
    d["ratio_shown"] = np.maximum(d["ratio"], floor)
    d["significant"] = np.where(d["p_fdr"] < 0.05, "FDR < 0.05", "not significant")
    y = alt.Y(f"{label}:N", sort=alt.EncodingSortField(field="ratio", order="descending"), title=None,
              axis=alt.Axis(labelLimit=260))
    x_scale = alt.Scale(type="log")
    bars = alt.Chart(d).mark_rule(color="#bbbbbb", strokeWidth=6).encode(
        x=alt.X("null_ratio_low:Q", scale=x_scale, title="observed / expected among the flagged items"),
        x2="null_ratio_high:Q", y=y)
    dots = alt.Chart(d).mark_point(size=70, filled=True).encode(
        x=alt.X("ratio_shown:Q", scale=x_scale), y=y,
        color=alt.Color("significant:N", title=None, scale=alt.Scale(domain=["FDR < 0.05", "not significant"],
                                                                     range=["#e45756", "#4c78a8"])),
        tooltip=[f"{label}:N", "n_items:Q", "n_flagged:Q", alt.Tooltip("expected:Q", format=".1f"),
                 alt.Tooltip("ratio:Q", format=".2f"), alt.Tooltip("p_fdr:Q", format=".3g")])
    one = alt.Chart(pd.DataFrame({"one": [1.0]})).mark_rule(strokeDash=[4, 3], color="gray").encode(x="one:Q")
    return alt.layer(one, bars, dots, title=title).properties(width=width)
