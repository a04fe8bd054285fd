"""Word-level scores for the lexical chapters (framing, mere exposure, identity terms), published or computed.

:func:`published_scores` reads the paper RMs' released scores of dictionary words; :func:`token_scores` sweeps the
whole vocabulary of any models now. Both label each model for the page (``label``; an LM's is marked implicit). Two
readings of a token sweep at word level, both by the data layer's rules (:func:`rmlib.data.normalise_token`,
:func:`rmlib.data.match_words_to_tokens`): :func:`word_like_tokens` keeps every token whose text is word-like, and
:func:`tokens_to_words` maps a word list onto the single tokens that spell each word. Sweeps of models with
different tokenizers meet on their decoded text: :func:`shared_vocabulary` and :func:`vocabulary_overlap`
(distributions, heterogeneity).
"""
from __future__ import annotations

import re
from typing import Iterable

import numpy as np
import pandas as pd

from rmbook.analysis.categories import REPLACEMENT_CHAR
from rmbook.analysis.choices import PUBLISHED_OR_COMPUTE
from rmlib import engine
from rmlib import models as rm_models
from rmlib.data import RM_SCORE, published_word_scores
from rmlib.data import match_words_to_tokens
from rmlib.data import normalise_token
from rmlib.data.tokens import decoded_vocabulary
from rmlib.errors import as_list
from rmlib.registry import embedded_lms
from rmlib.stats import require_columns

__all__ = ["WORDLIKE", "TOKEN_PROMPT_KEYS", "MODES", "published_scores", "token_scores", "word_like_tokens",
           "tokens_to_words", "shared_vocabulary", "vocabulary_overlap"]

WORDLIKE = re.compile(r"^[a-z][a-z'-]*$")
TOKEN_PROMPT_KEYS = ["greatest", "best", "worst"]   # compute mode's prompts when a chapter names none
MODES = PUBLISHED_OR_COMPUTE


def published_scores(models=None, prompt_keys=None) -> pd.DataFrame:
    """:func:`rmlib.data.published_word_scores` (models None: all 10 paper RMs; prompt keys None: all 54) with
    ``label``: each RM's nickname."""
    scores = published_word_scores(models, prompt_keys)
    scores["label"] = scores["nickname"]
    return scores


def token_scores(models=None, prompt_keys=None, tokens=None, *, load=None) -> pd.DataFrame:
    """Full-vocabulary sweeps (:func:`rmlib.engine.token_reward_table`) of ``models`` (None: the embedded LMs) under
    ``prompt_keys`` (None: greatest, best, worst), over ``tokens`` (the chapters' ``TOKENS``: None, N or
    [start, stop]), with ``label``: the model id, marked '(implicit)' where the reward is an LM's log-prob."""

    scores = engine.token_reward_table(as_list(models or embedded_lms(), "models"),
                                       as_list(prompt_keys or TOKEN_PROMPT_KEYS, "prompt_keys"),
                                       tokens=engine.token_range(tokens), load=load)
    scores["label"] = scores["model"] + np.where(scores["reward_kind"] == RM_SCORE, "", " (implicit)")
    return scores


def word_like_tokens(token_scores: pd.DataFrame, text: str = "text") -> pd.DataFrame:
    """The rows whose ``text``, after :func:`rmlib.data.normalise_token` (no leading space, lower case), is
    word-like (letters, apostrophes, hyphens), with that form as column ``word``. Several tokens can share a word
    (' love', 'love', 'Love'): they stay separate rows."""
    require_columns(token_scores, [text], "token_scores")
    word = token_scores[text].map(normalise_token)
    keep = word.str.match(WORDLIKE)
    return token_scores[keep].assign(word=word[keep])


def tokens_to_words(token_scores: pd.DataFrame, words: Iterable[str], tokenizer_for=None) -> pd.DataFrame:
    """Map token-level scores to words with :func:`rmlib.data.match_words_to_tokens` (a token matches a word when
    its text, less one leading space, spells the word in any of its case variants).

    Returns one row per model x prompt x word: level ('token'), model, reward_kind, prompt_key, prompt,
    prompt_valence, word, [label,] reward (mean over the word's single-token variants), reward_min, reward_max,
    n_variants.
    Words without a single token are absent (see ``coverage`` in the attrs: model -> share of words matched).
    ``tokenizer_for(model_id)`` defaults to the loaded model's tokenizer.
    """
    require_columns(token_scores, ["model", "prompt_key", "token_id", "reward"], "token_scores")
    if tokenizer_for is None:

        def tokenizer_for(mid):
            return rm_models.cached_model(mid).tokenizer
    words = list(dict.fromkeys(str(w).strip() for w in words if str(w).strip()))
    frames, coverage = [], {}
    for m, g in token_scores.groupby("model", sort=False):
        tok = tokenizer_for(m)
        match = match_words_to_tokens(tok, words, vocabulary=decoded_vocabulary(tok))
        coverage[m] = match.coverage["coverage"]
        pairs = match.matches[["word", "token_id"]]
        j = g.merge(pairs, on="token_id", how="inner")
        keys = ["level", "model", "reward_kind", "prompt_key", "prompt", "prompt_valence", "word", "label"]
        keys = [k for k in keys if k in j.columns]
        frames.append(j.groupby(keys, as_index=False, sort=False).agg(
            reward=("reward", "mean"), reward_min=("reward", "min"), reward_max=("reward", "max"),
            n_variants=("token_id", "nunique")))
    out = pd.concat(frames, ignore_index=True)
    out.attrs["coverage"] = coverage
    return out


def _clean_for_alignment(df: pd.DataFrame, key: str) -> pd.DataFrame:
    keep = ~df[key].astype(str).str.contains(REPLACEMENT_CHAR, regex=False) & (df[key].astype(str).str.strip() != "")
    if "is_special" in df.columns:
        keep &= ~df["is_special"].astype(bool)
    return df[keep]


def shared_vocabulary(frame: pd.DataFrame, *, model: str = "model", key: str = "text", value: str = "reward",
                      normalise: bool = False, agg: str = "max") -> pd.DataFrame:
    """Wide table (index: decoded token text; one column per model) over the texts every model's vocabulary has.

    Tokenizers differ, so token ids mean nothing across models; the decoded text is the common currency (the
    ICLR paper's 85,632-token intersection is built the same way). Special tokens, whitespace-only tokens and byte
    fragments (text containing U+FFFD) are dropped. Where several ids of one model decode to the same text,
    ``agg`` ('max', 'mean' or 'first') combines them. ``normalise=True`` keys on
    :func:`rmlib.data.normalise_token` (no leading space, lower case) instead, a looser match.
    """
    require_columns(frame, [model, key, value], "frame")
    if agg not in ("max", "mean", "first"):
        raise ValueError(f"agg must be 'max', 'mean' or 'first', got {agg!r}")
    d = _clean_for_alignment(frame, key)
    if normalise:
        d = d.assign(**{key: d[key].map(normalise_token)})
        d = d[d[key] != ""]
    models = list(dict.fromkeys(d[model]))
    if len(models) < 2:
        raise ValueError(f"shared_vocabulary needs sweeps of at least 2 models, got {models}")
    wide = d.groupby([key, model], sort=False)[value].agg(agg).unstack(model)[models].dropna()
    if len(wide) < 3:
        raise ValueError(f"the models {models} share only {len(wide)} decoded tokens; nothing to compare")
    wide.index.name = "text"
    wide.columns.name = None
    return wide


def vocabulary_overlap(frame: pd.DataFrame, shared: pd.DataFrame, *, model: str = "model",
                       key: str = "text") -> pd.DataFrame:
    """Per model: n_tokens swept, n_distinct_texts (after cleaning), n_shared, share_shared."""
    require_columns(frame, [model, key], "frame")
    clean = _clean_for_alignment(frame, key)
    rows = []
    for m in shared.columns:
        n_tok = int((frame[model] == m).sum())
        n_txt = int(clean.loc[clean[model] == m, key].nunique())
        rows.append({"model": m, "n_tokens": n_tok, "n_distinct_texts": n_txt, "n_shared": len(shared),
                     "share_shared": len(shared) / n_txt if n_txt else np.nan})
    return pd.DataFrame(rows)
