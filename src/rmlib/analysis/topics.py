"""Coarse topics for EloEverything items from WordNet noun supersenses, and the paper's four themes as a fixed map.

The FAccT 2025 paper says RMs undervalue concepts related to nature, life, technology and human sexuality. To test
that at the level of items, every item gets a **topic**: the WordNet 3.0 noun supersense (the lexicographer file,
e.g. ``noun.animal``) of its head noun's most frequent sense. The paper's four **themes** are mapped onto
supersenses and hypernyms in one table, :data:`THEMES`, fixed before looking at any result. The test of which
topics are over-represented among the most undervalued items is :func:`rmlib.stats.topic_enrichment`.

Head noun rules (:func:`head_noun`), in order: drop a trailing disambiguation '(...)'; if the whole title is a
WordNet noun ('Black hole' -> black_hole) use it; otherwise cut the title before its first preposition ('Statue of
Liberty' -> 'Statue') and take the last word (English noun compounds are head-final: 'Food allergy' -> allergy).
Titles whose head is not a WordNet noun (most names of places, works and people) get no topic; the chapter says how
many.
"""
from __future__ import annotations

import re
from typing import Iterable

import pandas as pd

from rmlib.stats import require_columns

__all__ = ["NOUN_SUPERSENSES", "THEMES", "head_noun", "item_topics", "theme_members", "theme_table"]

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

