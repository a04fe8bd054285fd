"""Word frequency: the BNC list (Leech, Rayson & Wilson 2001), `wordfreq`, and one token_frequency() for tokens.

All frequencies are per million words. (Zipf = log10(per_million) + 3.)
"""
from __future__ import annotations

import functools
import re

import pandas as pd
from rmlib.data.files import path

BNC_FILE = "paper_facct2025/corpora/1_1_all_alpha.txt"
_LEADING_MARKERS = re.compile(r"^[\sĠ▁]+")


def normalise_token(token_text: str) -> str:
    """The normalisation used for every token/word lookup in rmlib.data.

    Strip leading whitespace and the byte-level/SentencePiece space markers 'Ġ' (GPT-2/Llama-3 BPE) and '▁'
    (SentencePiece), strip trailing whitespace, and lowercase. ' Love', 'ĠLove', '▁love' -> 'love'.
    """
    return _LEADING_MARKERS.sub("", str(token_text)).rstrip().lower()


_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)")


def _number(field: str) -> float:
    """BNC figures may carry printed-book flags ('41#', '98&&'); a bare '&&' means no figure (NaN)."""
    m = _NUMBER.match(field)
    return float(m.group(1)) if m else float("nan")


@functools.lru_cache(maxsize=None)
def _bnc() -> pd.DataFrame:
    text = path(BNC_FILE).read_bytes().decode("iso-8859-1")
    lines = text.splitlines()
    if lines[0].split() != ["Word", "PoS", "Freq", "Ra", "Disp"]:
        raise ValueError(f"{BNC_FILE}: unexpected header {lines[0]!r}")
    rows, lemma, pos, entry = [], None, None, 0
    for n, line in enumerate(lines[1:], 2):
        fields = line.removeprefix("\t").split("\t")
        if len(fields) != 6:
            # e.g. 'further*  Adj  [see far]': a cross-reference, not a frequency row
            continue
        word, p, marker, freq, rng, disp = fields
        if word == "@":
            if lemma is None:
                raise ValueError(f"{BNC_FILE}:{n}: '@' row before any headword")
            kind, form = "form", marker
        else:
            lemma, pos, entry = word, p, entry + 1
            kind, form = ("lemma" if marker == "%" else "word"), word
        rows.append((entry, lemma, pos, form, kind, _number(freq), _number(rng), _number(disp)))
    return pd.DataFrame(rows, columns=["entry", "lemma", "pos", "form", "row_type", "freq", "range", "dispersion"])


def load_bnc() -> pd.DataFrame:
    """The BNC frequency list as a tidy table (ISO-8859-1 decoded; `@` rows filled with their headword).

    Columns: entry (1, 2, ...: one per headword x part of speech; its forms share it), lemma (headword; '@' rows
    take the previous headword), pos (BNC tag, e.g. NoC, Verb), form (the
    word form this row counts), row_type ('lemma' = total over the forms listed under it, 'form' = one form of
    that lemma, 'word' = headword with a single form), freq (per million), range (number of BNC sectors, max
    100), dispersion (Juilland's D). range/dispersion are missing for a few
    rows where the list prints '&&' instead of a figure; flags such as '#' after a figure are dropped. Some lemmas carry a disambiguation, e.g. 'lie (/lay)'.
    """
    return _bnc().copy()


@functools.lru_cache(maxsize=None)
def _bnc_by_form() -> dict[str, float]:
    df = _bnc()
    forms = df[df["row_type"] != "lemma"]  # lemma rows are sums of their forms: do not double count
    return forms.groupby(forms["form"].str.lower())["freq"].sum().to_dict()


@functools.lru_cache(maxsize=None)
def _bnc_by_lemma() -> dict[str, float]:
    df = _bnc()
    heads = df[df["row_type"] != "form"].set_index("entry")["freq"]  # an entry's total: its lemma or word row
    members = df.assign(form=df["form"].str.lower()).drop_duplicates(["entry", "form"])
    return members.groupby("form")["entry"].agg(lambda e: float(heads.reindex(e).sum())).to_dict()


FREQUENCY_SOURCES = ("bnc", "bnc_lemma", "wordfreq")


def word_frequency(word: str, source: str = "wordfreq") -> float:
    """Frequency per million of a word (case-insensitive), by one of three ways of matching it to counts.

    source='wordfreq': wordfreq.word_frequency(word, 'en') x 1e6 (multi-word strings are combined by wordfreq).
    source='bnc': the exact word form: the BNC per-million figures of that form summed over parts of speech.
    source='bnc_lemma': the headword totals: every BNC entry (headword x part of speech) that lists the word as its
    headword or as one of its forms contributes its whole total ('cared' -> the verb 'care', all its forms; 'care'
    -> noun + verb). 0.0 if absent from the BNC list.
    """
    if source == "wordfreq":
        import wordfreq

        return float(wordfreq.word_frequency(word, "en")) * 1e6
    if source == "bnc":
        return float(_bnc_by_form().get(str(word).lower(), 0.0))
    if source == "bnc_lemma":
        return float(_bnc_by_lemma().get(str(word).lower(), 0.0))
    raise ValueError(f"source must be one of {FREQUENCY_SOURCES}, not {source!r}")


def token_frequency(token_text: str, source: str = "wordfreq") -> float:
    """Frequency per million of a decoded token after normalise_token() (leading space/Ġ/▁ stripped, lowercased).

    Tokens that normalise to '' (pure whitespace) get 0.0.
    """
    word = normalise_token(token_text)
    return word_frequency(word, source) if word else 0.0


def frequency_table(words, sources=FREQUENCY_SOURCES) -> pd.DataFrame:
    """word, then per source ``freq_<source>`` (per million) and ``zipf_<source>`` (log10 per million + 3).

    Zipf is NaN where the source has no count (a log of 0 is undefined): those words drop out of a regression
    instead of sitting at an arbitrary floor.
    """
    import numpy as np

    words = list(dict.fromkeys(words))
    out = pd.DataFrame({"word": words})
    for s in sources:
        if s not in FREQUENCY_SOURCES:
            raise ValueError(f"frequency source must be one of {FREQUENCY_SOURCES}, not {s!r}")
        f = np.array([_cached_frequency(str(w), s) for w in words], dtype=float)
        out[f"freq_{s}"] = f
        with np.errstate(divide="ignore"):
            out[f"zipf_{s}"] = np.where(f > 0, np.log10(np.where(f > 0, f, 1.0)) + 3.0, np.nan)
    return out


@functools.lru_cache(maxsize=500_000)
def _cached_frequency(word: str, source: str) -> float:
    """Cached: a vocabulary sweep asks for the same normalised words under every prompt."""
    return word_frequency(word, source)
