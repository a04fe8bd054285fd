"""Token <-> word matching: which single vocabulary tokens spell a word, and which words need several tokens.

Rules (documented in match_words_to_tokens): a token matches a word when its decoded text, after removing one
leading space, equals the word or one of its case variants. Words without any such token are reported as
multi-token words with their encodings, so the multi-token scorer can handle them; nothing is dropped silently.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

SPACE_MARKERS = ("Ġ", "▁")
_VISIBLE = {" ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍"}


def show_whitespace(text: str) -> str:
    """Make a token's invisible characters visible for tables: a space at either end, or one of two or more in a
    row, -> '␣' (one space between words stays a space, so 'Unconditional love' reads as two words and ' love' as
    '␣love'); newline -> '⏎', tab -> '⇥', other non-printable characters -> their \\u escape, the empty string ->
    '∅'. The book's tables (:mod:`rmbook.report.tables`) and the ``rmlib`` command show tokens this way."""
    text = str(text)
    if text == "":
        return "∅"
    out = []
    for i, ch in enumerate(text):
        if ch == " ":
            lone = 0 < i < len(text) - 1 and text[i - 1] != " " and text[i + 1] != " "
            out.append(" " if lone else "␣")
        else:
            out.append(_VISIBLE.get(ch, ch if ch.isprintable() else ascii(ch)[1:-1]))
    return "".join(out)


def decoded_vocabulary(tokenizer) -> pd.DataFrame:
    """Every token id with its raw vocabulary string and decoded text.

    Columns: token_id, token (raw, e.g. 'Ġhello'), text (decoded, e.g. ' hello'), leading_space (the token
    starts with a space: decoded text starts with ' ' or the raw token with Ġ/▁), bare (text without that space).
    """
    n = len(tokenizer)
    ids = list(range(n))
    raw = tokenizer.convert_ids_to_tokens(ids)
    text = tokenizer.batch_decode([[i] for i in ids], clean_up_tokenization_spaces=False)
    df = pd.DataFrame({"token_id": ids, "token": [str(t) for t in raw], "text": text})
    df["leading_space"] = df["text"].str.startswith(" ") | df["token"].str.startswith(SPACE_MARKERS)
    df["bare"] = df["text"].str.removeprefix(" ")
    return df


def case_variants(word: str) -> list[str]:
    """The word as given, lowercase, Capitalised and UPPERCASE (deduplicated, in that order)."""
    return list(dict.fromkeys([word, word.lower(), word[:1].upper() + word[1:].lower(), word.upper()]))


@dataclass
class TokenMatch:
    """Result of match_words_to_tokens.

    matches: one row per (word, matching token): word, token_id, token, text, leading_space, exact_case
        (the token's text equals the word as given, not a case variant).
    words: one row per input word: word, n_tokens (single tokens found), token_ids (list), multi_token (no
        single token spells it), ids_space / ids_bare (encodings of ' word' / 'word', for the multi-token scorer).
    coverage: n_words, n_single_token, n_multi_token, coverage (fraction of words with >= 1 single token),
        n_with_space_variant, n_case_variant_only.
    """

    matches: pd.DataFrame
    words: pd.DataFrame
    coverage: dict

    @property
    def multi_token_words(self) -> list[str]:
        return self.words.loc[self.words["multi_token"], "word"].tolist()


def match_words_to_tokens(tokenizer, words, case_insensitive: bool = True,
                          vocabulary: pd.DataFrame | None = None) -> TokenMatch:
    """Find the single-token ids whose decoded text spells each word.

    Rules: (1) a token's decoded text is compared after removing one leading space, so both 'love' and ' love'
    (Ġlove / ▁love) match 'love'; (2) with case_insensitive=True, the case variants of case_variants() also
    match ('Love', 'LOVE'); (3) nothing else is normalised (no stemming, no punctuation stripping). Words are
    stripped of surrounding whitespace. Duplicated input words are reported once.
    Pass a precomputed `vocabulary` (decoded_vocabulary(tokenizer)) to match several word lists quickly.
    """
    vocab = decoded_vocabulary(tokenizer) if vocabulary is None else vocabulary
    by_bare: dict[str, list[int]] = {}
    for row, bare in enumerate(vocab["bare"]):
        by_bare.setdefault(bare, []).append(row)
    clean = list(dict.fromkeys(str(w).strip() for w in words))
    if "" in clean:
        raise ValueError("match_words_to_tokens: the word list contains an empty string")
    match_rows, word_rows = [], []
    for w in clean:
        forms = case_variants(w) if case_insensitive else [w]
        rows = sorted({r for f in forms for r in by_bare.get(f, [])})
        for r in rows:
            v = vocab.iloc[r]
            match_rows.append((w, int(v["token_id"]), v["token"], v["text"], bool(v["leading_space"]), v["bare"] == w))
        ids = [int(vocab.iloc[r]["token_id"]) for r in rows]
        word_rows.append((w, len(ids), ids, not ids,
                          tokenizer.encode(" " + w, add_special_tokens=False),
                          tokenizer.encode(w, add_special_tokens=False)))
    matches = pd.DataFrame(match_rows, columns=["word", "token_id", "token", "text", "leading_space", "exact_case"])
    table = pd.DataFrame(word_rows, columns=["word", "n_tokens", "token_ids", "multi_token", "ids_space", "ids_bare"])
    n_single = int((~table["multi_token"]).sum())
    exact_words = set(matches.loc[matches["exact_case"], "word"])
    coverage = {
        "n_words": len(table),
        "n_single_token": n_single,
        "n_multi_token": len(table) - n_single,
        "coverage": n_single / len(table) if len(table) else float("nan"),
        "n_with_space_variant": int(matches.loc[matches["leading_space"], "word"].nunique()),
        "n_case_variant_only": int(len(set(matches["word"]) - exact_words)),
    }
    return TokenMatch(matches=matches, words=table, coverage=coverage)
