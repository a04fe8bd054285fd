"""Token specs, in one place: the ``tokens=`` argument of a sweep (and of GCG, the audit, ``token_rewards``), its
text form on the command line and in a plan, and the chapters' ``TOKENS`` parameter.

:func:`parse_tokens` reads the text form (``LO:HI``, ``LO:``, ``:HI`` or ids ``1,2,3``); :func:`token_range` turns a
chapter's ``TOKENS`` (None, a count N of the first ids, or ``[start, stop]``) into a slice.

:func:`tokens_arg` checks its type before anything loads, with a message that says what to give instead: a string
such as ``"0:10"`` is the CLI's and a plan's spelling, not Python's (``slice(0, 10)`` or ``range(0, 10)``); a torch
tensor or numpy array of integer ids is taken as its ``.tolist()``; a slice's step is honoured, and a step that is
not a positive integer is refused. :func:`vocab_ids` then turns it into the ids of a vocabulary of ``n_vocab``.
"""
from __future__ import annotations

import numbers
import warnings

from rmlib.errors import SweepError

__all__ = ["parse_tokens", "token_range", "tokens_arg", "vocab_ids", "TokensWarning"]

_FORMS = "use LO:HI, LO: (to the end), :HI or integer ids 1,2,3"


def parse_tokens(text: str | None) -> slice | list[int] | None:
    """The text form of a token spec, as the command line's ``--tokens`` and a plan's ``tokens:`` spell it:
    ``'LO:HI'``, ``'LO:'`` (to the end of the vocabulary) or ``':HI'`` -> a slice; ``'1,2,3'`` -> those ids; None
    (no spec) -> None, the whole vocabulary."""
    if text is None:
        return None
    text = text.strip()
    try:
        if ":" in text:
            lo, hi = (part.strip() for part in text.split(":", 1))
            lo, hi = int(lo) if lo else 0, int(hi) if hi else None
            if lo < 0 or (hi is not None and hi <= lo):
                raise SweepError(f"tokens {text!r} is an empty or reversed slice: use LO:HI with 0 <= LO < HI")
            return slice(lo, hi)
        ids = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise SweepError(f"tokens {text!r} is not a vocabulary slice: {_FORMS}") from None
    if not ids:
        raise SweepError(f"no token ids given in {text!r}: {_FORMS}")
    if len(set(ids)) != len(ids):  # a sweep refuses them too, but only once the model is loaded
        raise SweepError(f"tokens {text!r} repeats token ids: give each id once")
    return ids


def token_range(tokens) -> slice | None:
    """The chapters' ``TOKENS`` parameter as a vocabulary slice: None (the whole vocabulary), ``N`` (the first N
    token ids) or ``[start, stop]`` (ids start..stop-1)."""
    if tokens is None:
        return None
    if isinstance(tokens, bool):
        raise ValueError(f"TOKENS={tokens!r}: give None, a number of token ids, or [start, stop]")
    if isinstance(tokens, int):
        if tokens < 1:
            raise ValueError(f"TOKENS={tokens}: give at least one token id (or None for the whole vocabulary)")
        return slice(0, tokens)
    if isinstance(tokens, (list, tuple)) and len(tokens) == 2 and all(isinstance(t, int) for t in tokens):
        start, stop = tokens
        if not 0 <= start < stop:
            raise ValueError(f"TOKENS={list(tokens)}: need 0 <= start < stop")
        return slice(start, stop)
    raise ValueError(f"TOKENS={tokens!r}: give None, a number of token ids, or [start, stop]")


def tokens_arg(tokens):
    """None, a slice (its step checked), or a list of the ids given (a tensor/array as its ``.tolist()``)."""
    if tokens is None:
        return None
    if isinstance(tokens, (str, bytes)):
        raise SweepError(f"tokens={tokens!r} is a string; in Python give slice(LO, HI) or range(LO, HI) (or a list of "
                     "ids); 'LO:HI' is how the command line and a plan spell it")
    if isinstance(tokens, slice):
        for name in ("start", "stop", "step"):
            value = getattr(tokens, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
                raise SweepError(f"tokens={tokens!r}: the slice's {name} must be an integer or None, not {value!r}")
        if tokens.step is not None and tokens.step < 1:
            raise SweepError(f"tokens={tokens!r}: the slice's step must be a positive integer")
        return tokens
    if hasattr(tokens, "tolist") and callable(tokens.tolist):  # torch tensors, numpy arrays
        tokens = tokens.tolist()
        if not isinstance(tokens, list):  # a 0-d tensor or array: one id
            tokens = [tokens]
    try:
        tokens = list(tokens)
    except TypeError:
        raise SweepError(f"tokens must be None, a slice, or a list of integer ids, not "
                         f"{type(tokens).__name__}") from None
    not_int = [t for t in tokens if isinstance(t, bool) or not isinstance(t, numbers.Integral)]
    if not_int:
        raise SweepError(f"token ids must be integers, got {not_int[:5]} ({type(not_int[0]).__name__}); a float id "
                     "would be truncated to another token. Convert them with int() / .astype(int)")
    return tokens


def vocab_ids(tokens, n_vocab: int) -> list[int] | range:
    """The ids ``tokens`` names in a vocabulary of ``n_vocab`` (a slice: every ``step``-th id from ``start``)."""
    tokens = tokens_arg(tokens)
    if tokens is None:
        return range(n_vocab)
    if isinstance(tokens, slice):
        step, start, stop = tokens.step or 1, tokens.start or 0, tokens.stop
        if stop is None:  # an explicit start is kept as given: a negative one is refused as out of range
            return range(start, n_vocab, step)
        if start < 0 or stop < 0:  # Python's "from the end" would sweep ids the caller never named
            raise SweepError(f"tokens {start}:{stop}: token ids start at 0, so a slice cannot be negative; the "
                         f"vocabulary has ids 0..{n_vocab - 1}")
        if start >= n_vocab:
            raise SweepError(f"tokens {start}:{stop} start beyond the vocabulary, which has {n_vocab} ids "
                         f"(0..{n_vocab - 1})")
        if stop > n_vocab:
            warnings.warn(f"tokens {start}:{stop} run past the vocabulary of {n_vocab} ids: sweeping "
                          f"{start}:{n_vocab}", TokensWarning, stacklevel=3)
        return range(start, min(stop, n_vocab), step)
    return tokens


class TokensWarning(UserWarning):
    """A token slice that was clipped to the vocabulary."""
