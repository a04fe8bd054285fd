"""The masked view: slurs shown as ``n****r`` in a chapter's tables, charts and sentences unless the reader asks to
see them in full (a chapter's ``SHOW_SLURS`` parameter, passed to :func:`rmbook.report.setup_page`).

Which words are slurs is not decided here: :func:`rmlib.data.slurs.slur_lexicon` reads them from WordNet 3.0 with
documented rules. This module only rewrites what a page shows: a DataFrame's text cells, an altair spec's embedded
data, a markdown string. The analysis, the stored results and the cache keep every word as it is.
"""
from __future__ import annotations

import functools
import re

import pandas as pd
from rmlib.data.slurs import slur_lexicon

__all__ = ["show_slurs", "slurs_shown", "mask_word", "mask_text", "mask_frame", "mask_spec"]

_state = {"show": False}
_WORD = re.compile(r"[A-Za-z]+")
COMPOUND_MIN_LETTERS = 6  # a slur of at least this many letters is masked inside a longer word too ('Niggerati')


def show_slurs(show: bool) -> None:
    """Show slurs in full (``True``) or masked (``False``, the default) in what this kernel displays from now on."""
    if not isinstance(show, bool):
        raise TypeError(f"SHOW_SLURS must be True or False, got {show!r}")
    _state["show"] = show


def slurs_shown() -> bool:
    return _state["show"]


def mask_word(word: str) -> str:
    """``word`` with its inner letters starred, first and last kept ('nigger' -> 'n****r'); a word of 1 or 2
    letters becomes all stars. Spaces and hyphens inside a phrase are kept."""
    if len(word) <= 2:
        return "*" * len(word)
    inner = "".join(ch if ch in " -" else "*" for ch in word[1:-1])
    return word[0] + inner + word[-1]


def _phrase_pattern(phrases: tuple) -> re.Pattern | None:
    if not phrases:
        return None
    alternatives = "|".join(r"[\s-]+".join(map(re.escape, re.split(r"[\s-]+", p))) for p in phrases)
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)


def _compound_pattern(words: frozenset) -> re.Pattern | None:
    long = sorted((w for w in words if len(w) >= COMPOUND_MIN_LETTERS), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, long)), re.IGNORECASE) if long else None


@functools.lru_cache(maxsize=1)
def _patterns() -> tuple:
    """The phrase and compound patterns of the slur list, compiled once per process (mask_text runs per cell)."""
    lexicon = slur_lexicon()
    return _phrase_pattern(lexicon.phrases), _compound_pattern(lexicon.words)


def mask_text(text: str) -> str:
    """``text`` with every slur (:func:`rmlib.data.slurs.slur_lexicon`) masked by :func:`mask_word`, whatever
    its case or inflection, and a slur of :data:`COMPOUND_MIN_LETTERS` or more letters also inside a longer word
    ('Gayniggers'); everything else, including marks such as '␣', is left as it is."""
    lexicon = slur_lexicon()
    phrases, compound = _patterns()
    if phrases is not None:
        text = phrases.sub(lambda m: mask_word(m.group(0)), text)

    def word(match: re.Match) -> str:
        w = match.group(0)
        if lexicon.is_slur(w):
            return mask_word(w)
        return compound.sub(lambda m: mask_word(m.group(0)), w) if compound is not None else w

    return _WORD.sub(word, text)


def _mask_value(value):
    return mask_text(value) if isinstance(value, str) else value


def _mask_index(index: pd.Index) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        return index.set_levels([_mask_index(level) for level in index.levels])
    if index.dtype == object or pd.api.types.is_string_dtype(index.dtype):
        return index.map(_mask_value)
    return index


def mask_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` with slurs masked in its text cells, its index and its column names."""
    out = df.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column].dtype):
            out[column] = out[column].map(_mask_value)
    out.index = _mask_index(out.index)
    out.columns = _mask_index(out.columns)
    return out


def _mask_json(value):
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, list):
        return [_mask_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _mask_json(v) for k, v in value.items()}
    return value


def mask_spec(spec: dict) -> dict:
    """A Vega-Lite spec with slurs masked in its embedded data (top-level ``datasets`` and any inline
    ``data.values``, in layers and facets too); field names, titles and settings are left alone."""
    def walk(node):
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, value in node.items():
            if key == "datasets" and isinstance(value, dict):
                out[key] = {name: _mask_json(rows) for name, rows in value.items()}
            elif key == "data" and isinstance(value, dict) and "values" in value:
                out[key] = {**value, "values": _mask_json(value["values"])}
            else:
                out[key] = walk(value)
        return out

    return walk(spec)
