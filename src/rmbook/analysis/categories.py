"""What kind of answer a token or an item is: one category per token, simple token features, and coarse forms of
EloEverything items.

* :func:`token_features` labels every token with one category (special, whitespace, punctuation, number, word,
  subword, non-ASCII, other) plus simple flags (leading space, capitalised, length). "word" means an alphabetic
  token whose lower-cased text is an English dictionary word (BNC word forms plus Warriner lemmas, ~21,600 forms);
  other alphabetic ASCII tokens are "subword" pieces. The dictionary is a stated choice, not ground truth.
* :func:`item_categories` gives EloEverything items (Wikipedia-style titles) a form category and a Warriner
  valence band, for the misalignment-by-category analysis.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from rmlib.data import load_bnc, load_warriner
from rmlib.stats import require_columns

__all__ = ["CATEGORIES", "REPLACEMENT_CHAR", "english_dictionary", "token_category", "token_features", "ITEM_FORMS",
           "item_form", "item_categories"]

CATEGORIES = ("word", "subword", "number", "punctuation", "whitespace", "special", "non-ASCII", "other")
REPLACEMENT_CHAR = "\ufffd"  # what a lone byte of a multi-byte UTF-8 character decodes to


@functools.lru_cache(maxsize=1)
def english_dictionary() -> frozenset[str]:
    """Lower-cased English word forms: the BNC frequency list's forms and the Warriner et al. lemmas.

    wordfreq's top lists are not used: they contain sub-word pieces such as 'ing' and 'tion'.
    """
    bnc = load_bnc()
    forms = set(bnc["form"].dropna().astype(str).str.lower())
    forms |= set(load_warriner()["word"].astype(str).str.lower())
    return frozenset(f for f in forms if f.isalpha())


def _is_punct_or_symbol(s: str) -> bool:
    return all(unicodedata.category(ch)[0] in "PS" for ch in s)


def token_category(text: str, is_special: bool = False, dictionary: Iterable[str] | None = None) -> str:
    """One of :data:`CATEGORIES` for a decoded token (leading/trailing whitespace ignored except for 'whitespace')."""
    if is_special:
        return "special"
    if not isinstance(text, str):
        raise TypeError(f"token text must be a str, got {type(text).__name__}: {text!r}")
    bare = text.strip()
    if not bare:
        return "whitespace"
    if REPLACEMENT_CHAR in bare:
        return "other"  # a byte fragment of a multi-byte character
    if bare.isdigit() and bare.isascii():
        return "number"
    if _is_punct_or_symbol(bare):
        return "punctuation"
    if bare.isalpha():
        if not bare.isascii():
            return "non-ASCII"
        words = english_dictionary() if dictionary is None else dictionary
        return "word" if bare.lower() in words else "subword"
    if not bare.isascii():
        return "non-ASCII"
    return "other"


def token_features(df: pd.DataFrame, text: str = "text", is_special: str | None = "is_special",
                   dictionary: Iterable[str] | None = None) -> pd.DataFrame:
    """A copy of ``df`` (one row per token) with columns category, leading_space, capitalised, all_caps, n_chars.

    ``leading_space``: the decoded text starts with whitespace (the token begins a new word mid-sentence).
    ``capitalised``: the first letter is upper case. ``n_chars``: length without surrounding whitespace.
    """
    require_columns(df, [text] + ([is_special] if is_special else []), "df")
    words = english_dictionary() if dictionary is None else frozenset(w.lower() for w in dictionary)
    texts = df[text].astype(str).tolist()
    special = df[is_special].astype(bool).tolist() if is_special else [False] * len(df)
    out = df.copy()
    out["category"] = pd.Categorical([token_category(t, s, words) for t, s in zip(texts, special)],
                                     categories=list(CATEGORIES))
    bare = [t.strip() for t in texts]
    out["leading_space"] = [t[:1].isspace() for t in texts]
    out["capitalised"] = [b[:1].isupper() for b in bare]
    out["all_caps"] = [len(b) > 1 and b.isupper() for b in bare]
    out["n_chars"] = [len(b) for b in bare]
    return out


# --- EloEverything items ------------------------------------------------------------------------------------------

ITEM_FORMS = ("dictionary word", "other single word", "multi-word name", "multi-word phrase", "disambiguated title",
              "other")
_PAREN = re.compile(r"\(.+\)\s*$")


def item_form(item: str, dictionary: Iterable[str] | None = None) -> str:
    """Coarse form of an EloEverything item (a Wikipedia-style title), one of :data:`ITEM_FORMS`.

    'disambiguated title' ends in a parenthesis ('Oz (TV series)'); 'dictionary word' is one word of
    :func:`english_dictionary` ('Water'); 'other single word' is one capitalised word outside it, mostly names and
    rarer words ('Novosibirsk', 'Altruism'); 'multi-word name' has every content word capitalised ('Will Smith');
    'multi-word phrase' has a lower-case word ('Food allergy'); 'other' (numbers, '1960s').
    """
    if not isinstance(item, str) or not item.strip():
        raise ValueError(f"item must be a non-empty string, got {item!r}")
    s = item.strip()
    if _PAREN.search(s):
        return "disambiguated title"
    words = english_dictionary() if dictionary is None else dictionary
    parts = s.split()
    if len(parts) == 1:
        if s.isalpha() and s.lower() in words:
            return "dictionary word"
        if s[:1].isupper():
            return "other single word"
        return "other"
    content = [p for p in parts if p.lower() not in {"of", "the", "and", "a", "an", "in", "on", "for", "to", "de"}]
    if all(p[:1].isupper() or not p[:1].isalpha() for p in content):
        return "multi-word name"
    return "multi-word phrase"


def item_categories(items: Iterable[str], valence: pd.DataFrame | Mapping[str, float] | None = None,
                    dictionary: Iterable[str] | None = None) -> pd.DataFrame:
    """One row per distinct item: item, form (:func:`item_form`), valence (Warriner 1-9 where the lower-cased item
    is a rated lemma, else NaN) and valence_band (negative < 4 <= neutral <= 6 < positive, or 'unrated').

    ``valence`` defaults to :func:`rmlib.data.load_warriner`; pass a DataFrame (word, valence) or a mapping.
    """
    items = list(dict.fromkeys(items))
    if not items:
        raise ValueError("items is empty")
    if valence is None:
        valence = load_warriner()
    if isinstance(valence, pd.DataFrame):
        require_columns(valence, ["word", "valence"], "valence")
        vmap = dict(zip(valence["word"].astype(str).str.lower(), valence["valence"].astype(float)))
    else:
        vmap = {str(k).lower(): float(v) for k, v in valence.items()}
    words = english_dictionary() if dictionary is None else frozenset(w.lower() for w in dictionary)
    v = np.array([vmap.get(str(i).strip().lower(), np.nan) for i in items], dtype=float)
    band = np.where(np.isnan(v), "unrated", np.where(v < 4, "negative", np.where(v > 6, "positive", "neutral")))
    return pd.DataFrame({"item": items, "form": [item_form(i, words) for i in items], "valence": v,
                         "valence_band": band})
