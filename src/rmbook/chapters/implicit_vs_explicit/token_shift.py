"""A token-level distribution shift: deterministic, meaning-preserving rewrites of preference pairs.

Why: Razin et al. argue that an implicit RM (DPO's log-ratio) leans on the tokens of a response more than an
explicit RM (a scalar head on the hidden state) does, so a change of surface form that keeps the meaning should hurt
it more. To test that, the same held-out pairs are rewritten, the responses only (the prompt is left as it is), with
rules that keep what a response says:

* ``casing``: the response in lower case (the pronoun "I" kept);
* ``punctuation``: "!" becomes ".", ";" becomes ",", a final full stop is dropped;
* ``contractions``: each listed contraction and its full form swap ("do not" <-> "don't"); ambiguous ones
  ("I'd", "he's") are not listed;
* ``synonyms``: an adjective (4+ letters, in its base form) is replaced by the first other single-word lemma of its
  most frequent WordNet 3.0 sense (NLTK's reader over ``make data``'s copy), e.g. "unlikely" -> "improbable".
  Adverbs and nouns are left alone: their first senses too often read wrongly in context ("instead of").

The label is kept because each rule is applied to both responses of a pair alike: nothing in a rewrite looks at which
response was chosen (:func:`shift_pairs` checks pair ids and order are unchanged, and tests check the rewrite is a
function of the text alone). Rewrites can still change meaning in rare cases (a sense WordNet ranks first that is not
the one meant); the chapter shows examples.
"""
from __future__ import annotations

import functools
import re
from typing import Sequence

import pandas as pd

from rmlib.data import load_wordnet
from rmlib.stats import require_columns

__all__ = ["SHIFTS", "CONTRACTIONS", "rewrite", "shift_pairs", "word_set", "jaccard"]

SHIFTS = ("casing", "punctuation", "contractions", "synonyms")

CONTRACTIONS = {"do not": "don't", "does not": "doesn't", "did not": "didn't", "is not": "isn't", "are not": "aren't",
                "was not": "wasn't", "were not": "weren't", "have not": "haven't", "has not": "hasn't",
                "cannot": "can't", "will not": "won't", "would not": "wouldn't", "should not": "shouldn't",
                "could not": "couldn't", "I am": "I'm", "you are": "you're", "we are": "we're",
                "they are": "they're", "it is": "it's", "that is": "that's", "I have": "I've", "let us": "let's"}
_SWAP = {**{k.lower(): v for k, v in CONTRACTIONS.items()}, **{v.lower(): k for k, v in CONTRACTIONS.items()}}
_SWAP_RE = re.compile(r"\b(" + "|".join(re.escape(k) for k in sorted(_SWAP, key=len, reverse=True)) + r")\b",
                      re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


def _keep_case(src: str, new: str) -> str:
    return new[:1].upper() + new[1:] if src[:1].isupper() else new


def _contractions(text: str) -> str:
    return _SWAP_RE.sub(lambda m: _keep_case(m.group(0), _SWAP[m.group(0).lower()]), text)


def _casing(text: str) -> str:
    return re.sub(r"\bi\b", "I", text.lower())


def _punctuation(text: str) -> str:
    out = text.replace("!", ".").replace(";", ",").rstrip()
    return out[:-1] if out.endswith(".") and not out.endswith("..") else out


@functools.lru_cache(maxsize=None)
def _synonym(word: str) -> str | None:
    """The first other single-word lemma of the most frequent sense of a base-form adjective."""
    wn = load_wordnet()
    senses = wn.synsets(word)
    if not senses or senses[0].pos() not in ("a", "s") or wn.morphy(word, senses[0].pos()) != word:
        return None
    for lemma in senses[0].lemma_names():
        if lemma.isalpha() and lemma.lower() != word and lemma.islower():
            return lemma
    return None


def _synonyms(text: str) -> str:
    def swap(m):
        w = m.group(0)
        if len(w) < 4 or "'" in w or (w[0].isupper() and m.start() > 0 and text[m.start() - 2:m.start()] != ". "):
            return w  # short words, contractions and mid-sentence capitals (names) are left alone
        new = _synonym(w.lower())
        return _keep_case(w, new) if new else w
    return _WORD.sub(swap, text)


_RULES = {"casing": _casing, "punctuation": _punctuation, "contractions": _contractions, "synonyms": _synonyms}


def rewrite(text: str, shifts: Sequence[str] = SHIFTS) -> str:
    """`text` with the rewrites `shifts` applied in the order given (a function of the text alone)."""
    unknown = [s for s in shifts if s not in _RULES]
    if unknown:
        raise ValueError(f"unknown rewrite(s) {unknown}; choose from {SHIFTS}")
    for s in shifts:
        text = _RULES[s](text)
    return text


def word_set(text: str) -> set[str]:
    """Lower-cased words: a tokenizer-independent notion of 'the tokens of a response'."""
    return {w.lower() for w in _WORD.findall(text)}


def jaccard(a: str, b: str) -> float:
    """Share of words two texts have in common (|A ∩ B| / |A ∪ B|; 1 for two empty texts)."""
    x, y = word_set(a), word_set(b)
    return len(x & y) / len(x | y) if x | y else 1.0


def shift_pairs(pairs: pd.DataFrame, shifts: Sequence[str] = SHIFTS) -> pd.DataFrame:
    """The pairs with both responses rewritten alike (prompt, ids and order kept).

    Adds ``changed`` (either response differs from the original) and ``kept_words`` (mean word overlap, Jaccard,
    of each rewritten response with its original: how much of the surface survived).
    """
    require_columns(pairs, ["pair_id", "prompt", "chosen", "rejected"], "pairs")
    out = pairs.copy()
    for side in ("chosen", "rejected"):
        out[side] = [rewrite(t, shifts) for t in pairs[side]]
    if out["pair_id"].tolist() != pairs["pair_id"].tolist():
        raise AssertionError("a rewrite reordered the pairs")  # cannot happen; the label depends on it
    out["changed"] = (out["chosen"] != pairs["chosen"]) | (out["rejected"] != pairs["rejected"])
    out["kept_words"] = [(jaccard(a, b) + jaccard(c, d)) / 2 for a, b, c, d in
                         zip(out["chosen"], pairs["chosen"], out["rejected"], pairs["rejected"])]
    return out
