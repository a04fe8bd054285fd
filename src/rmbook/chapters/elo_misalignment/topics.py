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

'Human sexuality' is a subject rather than a kind of thing: a sex toy is an artifact and a sex position a location by
their head nouns, yet both are about sex. So that theme (``"title_words": True`` in :data:`THEMES`) also looks at the
*other* words of a title, by WordNet's relations only: a noun whose most frequent sense lies under one of the theme's
synsets ('Spoons sex position': sex -> sexual_activity), or an adjective whose most frequent sense is derivationally
related to, or pertains to, a noun sense under them ('Sexual fetishism': sexual -> sex.n.04; 'Lesbian erotica';
'pornographic' -> pornography). Its synsets also take in WordNet's sexual feelings (sex.n.03), sexual arousal
(sexual_arousal.n.01, under which WordNet files eroticism and erection) and the erogenous zones (erogenous_zone.n.01:
'any area of the body especially sensitive to sexual stimulation'), the body parts WordNet itself ties to sex
besides the genitalia. No item is listed by hand; what WordNet files elsewhere stays out ('Nudity': nakedness is a
noun.state under 'condition'; 'Fingering' has no sexual sense in WordNet 3.0), and a title word's sexual first sense
can bring in a title that is not about sex (a band or song named with an obscenity); :func:`item_topics` records which
word placed each item (``sexuality_word``) so the page can show them.
"""
from __future__ import annotations

import re
from typing import Iterable

import pandas as pd

from rmlib.data.wordnet import load_wordnet
from rmlib.stats import require_columns

__all__ = ["NOUN_SUPERSENSES", "THEMES", "head_noun", "title_word_theme", "item_topics", "theme_members",
           "theme_table"]

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
                    "sexual_desire.n.01", "sex.n.03", "sexual_arousal.n.01", "erogenous_zone.n.01"],
        "exclude": [],
        "title_words": True,
        "why": "sexual activity, sexuality, sex organs, pornography, sexual desire, sexual feelings and arousal, and "
               "the erogenous zones; a subject, so any word of the title counts (a noun by its first sense, an "
               "adjective by the noun it derives from)",
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


def _above(syn) -> set[str]:
    """The synset, the wholes it is part of (part holonyms) and all their hypernyms, by name."""
    starts = [syn, *syn.part_holonyms()]  # a penis is part of the male genitalia, a keyboard part of a computer
    return {s.name() for s in starts} | {h.name() for s in starts
                                         for h in s.closure(lambda x: x.hypernyms() + x.instance_hypernyms())}


def _word_senses(word: str, wn) -> list:
    """The synsets a non-head title word stands for: its most frequent noun sense, or else the noun senses its most
    frequent adjective sense derives from or pertains to ('sexual' -> sex.n.04)."""
    nouns = wn.synsets(word, pos="n")
    if nouns:
        return nouns[:1]
    adjs = wn.synsets(word, pos="a") + wn.synsets(word, pos="s")
    if not adjs:
        return []
    lemmas = [l for l in adjs[0].lemmas() if l.name().lower() == word] or adjs[0].lemmas()[:1]
    return [r.synset() for l in lemmas for r in l.derivationally_related_forms() + l.pertainyms()
            if r.synset().pos() == "n"]


def title_word_theme(item: str, head: str | None, wn, theme_synsets: set[str]) -> str | None:
    """The first title word other than the head whose sense (:func:`_word_senses`) lies under ``theme_synsets``."""
    words = [w.lower() for w in _WORD.findall(_DISAMBIG.sub("", str(item)))]
    if len(words) < 2:
        return None
    for w in words:
        if w == head:
            continue
        if any(_above(s) & theme_synsets for s in _word_senses(w, wn)):
            return w
    return None


def item_topics(items: Iterable[str], wn=None) -> pd.DataFrame:
    """One row per item: item, head, rule, synset (the head's most frequent noun sense), topic (its supersense; None
    without a WordNet noun), themes (the :data:`THEMES` it belongs to, as a list), sexuality_word (the title word
    that put the item in 'human sexuality' when the head did not; None otherwise).

    WordNet orders each word's senses by their frequency in the SemCor corpus, so the first noun sense is the most
    common reading; titles are mostly nouns, and a wrong sense for a rare reading is the price of a rule that needs
    no hand labels.
    """
    if wn is None:
        wn = load_wordnet()
    rows = []
    theme_sets = {t: set(spec["synsets"]) for t, spec in THEMES.items()}
    by_words = [t for t, spec in THEMES.items() if spec.get("title_words")]
    for item in dict.fromkeys(items):
        head, rule = head_noun(item, wn)
        if head is None:
            rows.append((item, None, rule, None, None, [], None))
            continue
        syn = wn.synsets(head, pos="n")[0]
        lex = syn.lexname()
        above = _above(syn)
        themes = [t for t, spec in THEMES.items()
                  if lex not in spec["exclude"] and (lex in spec["supersenses"] or above & theme_sets[t])]
        word = None
        for t in by_words:
            if t not in themes and (word := title_word_theme(item, head, wn, theme_sets[t])):
                themes.append(t)
        rows.append((item, head, rule, syn.name(), lex, themes, word))
    return pd.DataFrame(rows, columns=["item", "head", "rule", "synset", "topic", "themes", "sexuality_word"])


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

