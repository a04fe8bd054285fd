"""The one family of rmlib's errors, and the input checks every layer shares.

Every error rmlib raises on purpose derives from :class:`RmlibError`, so the `rmlib` command (and a caller) can catch
them all in one clause. Each concrete error keeps its historical base too (``ModelError`` is a ``ValueError``,
``SweepError`` a ``RuntimeError``, ...), so an existing ``except ValueError`` still catches what it caught.
"""
from __future__ import annotations

from collections.abc import Iterable

__all__ = ["RmlibError", "InputError", "ModelError", "SweepError", "as_list"]


class RmlibError(Exception):
    """The base of every error rmlib raises on purpose: bad input, a damaged file, a model that cannot load here."""


class InputError(RmlibError, TypeError):
    """An argument of the wrong kind (e.g. a bare string where a list of strings is expected)."""


class ModelError(RmlibError, ValueError):
    """A model id that names nothing, or a model that cannot be loaded as asked (here, at the bottom, so the
    registry and the trained RMs' files, :mod:`rmlib.trained`, share it; :mod:`rmlib.registry` exports it too)."""


class SweepError(RmlibError, RuntimeError):
    """A sweep, a plan or a token spec that cannot run as given (``rmlib.engine``); here, at the bottom, so the
    engine's modules that check input share it without importing each other."""


def as_list(value, what: str, example: str = "") -> list:
    """``value`` (a list, tuple or other iterable) as a list; a bare ``str`` or ``bytes`` is refused, because
    ``list("love")`` would silently become the characters 'l', 'o', 'v', 'e'. ``what`` names the argument."""
    if isinstance(value, (str, bytes)):
        hint = example or f"[{value!r}]"
        raise InputError(f"{what} must be a list, not a single string {value!r:.60}: wrap it in a list, e.g. {hint}")
    if not isinstance(value, Iterable):
        raise InputError(f"{what} must be a list, not {type(value).__name__} {value!r:.60}")
    return list(value)
