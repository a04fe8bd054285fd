"""The ``tokens=`` argument of a sweep (and of GCG, the audit, ``token_rewards``): None, a slice, or integer ids.

:func:`tokens_arg` checks its type before anything loads, with a message that says what to give instead: a string
such as ``"0:10"`` is the CLI's and a plan's spelling, not Python's (``slice(0, 10)`` or ``range(0, 10)``); a torch
tensor or numpy array of integer ids is taken as its ``.tolist()``; a slice's step is honoured, and a step that is
not a positive integer is refused. :func:`vocab_ids` then turns it into the ids of a vocabulary of ``n_vocab``.
"""
from __future__ import annotations

import numbers
import warnings

__all__ = ["tokens_arg", "vocab_ids", "TokensWarning"]


def _error(message: str):
    from rmlib.engine.checks import SweepError
    return SweepError(message)


def tokens_arg(tokens):
    """None, a slice (its step checked), or a list of the ids given (a tensor/array as its ``.tolist()``)."""
    if tokens is None:
        return None
    if isinstance(tokens, (str, bytes)):
        raise _error(f"tokens={tokens!r} is a string; in Python give slice(LO, HI) or range(LO, HI) (or a list of "
                     "ids); 'LO:HI' is how the command line and a plan spell it")
    if isinstance(tokens, slice):
        for name in ("start", "stop", "step"):
            value = getattr(tokens, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
                raise _error(f"tokens={tokens!r}: the slice's {name} must be an integer or None, not {value!r}")
        if tokens.step is not None and tokens.step < 1:
            raise _error(f"tokens={tokens!r}: the slice's step must be a positive integer")
        return tokens
    if hasattr(tokens, "tolist") and callable(tokens.tolist):  # torch tensors, numpy arrays
        tokens = tokens.tolist()
        if not isinstance(tokens, list):  # a 0-d tensor or array: one id
            tokens = [tokens]
    try:
        tokens = list(tokens)
    except TypeError:
        raise _error(f"tokens must be None, a slice, or a list of integer ids, not {type(tokens).__name__}") from None
    not_int = [t for t in tokens if isinstance(t, bool) or not isinstance(t, numbers.Integral)]
    if not_int:
        raise _error(f"token ids must be integers, got {not_int[:5]} ({type(not_int[0]).__name__}); a float id "
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
            raise _error(f"tokens {start}:{stop}: token ids start at 0, so a slice cannot be negative; the "
                         f"vocabulary has ids 0..{n_vocab - 1}")
        if start >= n_vocab:
            raise _error(f"tokens {start}:{stop} start beyond the vocabulary, which has {n_vocab} ids "
                         f"(0..{n_vocab - 1})")
        if stop > n_vocab:
            warnings.warn(f"tokens {start}:{stop} run past the vocabulary of {n_vocab} ids: sweeping "
                          f"{start}:{n_vocab}", TokensWarning, stacklevel=3)
        return range(start, min(stop, n_vocab), step)
    return tokens


class TokensWarning(UserWarning):
    """A token slice that was clipped to the vocabulary."""
