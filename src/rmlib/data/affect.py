"""Word valence from the affect lexicons (AFINN, VADER, Warriner et al.), on one centred scale per lexicon.

AFINN is what the FAccT paper used; VADER and Warriner are the robustness checks. Each lexicon keeps its own range
(AFINN -5..5, VADER -4..4, Warriner 1..9 minus its neutral 5), so a valence compares within a lexicon, not across.
"""
from __future__ import annotations

import functools
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from rmlib.data.lexicons import load_afinn, load_vader, load_warriner

__all__ = ["AFFECT_SOURCES", "affect_table", "word_affect", "valence_extremeness"]

AFFECT_SOURCES = ("afinn", "vader", "warriner")


@functools.lru_cache(maxsize=None)
def _affect(source: str) -> pd.DataFrame:
    if source == "afinn":
        df = load_afinn("165").rename(columns={"score": "valence"})
    elif source == "vader":
        df = load_vader()[["word", "valence"]]
    elif source == "warriner":
        df = load_warriner()[["word", "valence"]]
        df = df.assign(valence=df["valence"] - 5.0)  # 1..9 scale, 5 = neutral
    else:
        raise ValueError(f"affect source must be one of {AFFECT_SOURCES}, not {source!r}")
    df = df.assign(word=df["word"].astype(str).str.lower().str.strip())
    return df.groupby("word", as_index=False)["valence"].mean()


def affect_table(source: str = "afinn") -> pd.DataFrame:
    """word (lowercase), valence centred on 0 (AFINN -5..5; VADER -4..4; Warriner 1..9 minus 5).

    AFINN is what the FAccT paper used; VADER and Warriner are the robustness checks. Words listed twice after
    lowercasing get their mean.
    """
    return _affect(source).copy()


def word_affect(words: Iterable[str], source: str = "afinn", missing: str = "nan") -> pd.Series:
    """Valence of each word (case-insensitive), indexed like ``words``.

    ``missing='zero'`` gives unlisted words 0, which is how AFINN scoring treats them (AFINN lists only
    sentiment-bearing words); ``'nan'`` leaves them missing (right for norms such as Warriner, which rate all kinds
    of words, so absence says nothing about affect).
    """
    if missing not in ("nan", "zero"):
        raise ValueError(f"missing must be 'nan' or 'zero', not {missing!r}")
    words = pd.Series(list(words), dtype=object)
    lut = _affect(source).set_index("word")["valence"]
    out = words.str.lower().str.strip().map(lut)
    return out.fillna(0.0) if missing == "zero" else out


def valence_extremeness(words: Iterable[str], sources: Sequence[str] = AFFECT_SOURCES) -> pd.DataFrame:
    """How extreme each word's valence is within each lexicon: word, then per source ``<source>`` (the valence,
    NaN if unrated) and ``<source>_extreme`` (the share of that lexicon's words of the same sign that are *more*
    extreme: 0 = at the very end of the scale, 0.5 = a middling value).

    Lexicons use different scales, so a word's raw valence cannot be compared across them; its place within each
    lexicon's own range can.
    """
    words = list(dict.fromkeys(words))
    out = pd.DataFrame({"word": words})
    for src in sources:
        table = affect_table(src)
        v = word_affect(words, src, missing="nan").to_numpy(float)
        pos, neg = np.sort(table["valence"][table["valence"] > 0]), np.sort(table["valence"][table["valence"] < 0])
        ext = np.full(len(words), np.nan)
        for i, x in enumerate(v):
            if x > 0:
                ext[i] = (pos.size - np.searchsorted(pos, x, side="right")) / pos.size
            elif x < 0:
                ext[i] = np.searchsorted(neg, x, side="left") / neg.size
        out[src] = v
        out[f"{src}_extreme"] = ext
    return out
