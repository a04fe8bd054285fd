"""Which models' own code may run in this process, named one by one (:func:`trust_remote_code`): the opt-in a
chapter's ``TRUST_REMOTE_CODE`` parameter gives, since a notebook has no ``load_model`` call to pass
``trust_remote_code=True`` to. :mod:`rmlib.models.loading` reads it (:func:`is_trusted`) before
:func:`rmlib.models.policy.check_remote_code` applies the same rules as to an explicit opt-in. Loads no torch, so a
chapter's parameter check can set it before anything heavy is imported."""
from __future__ import annotations

from rmlib.errors import RmlibError
from rmlib.registry import ModelSpec

__all__ = ["trust_remote_code", "trusted_models", "is_trusted"]

_TRUSTED: set[str] = set()  # model ids whose own code may run in this process (trust_remote_code), none by default


def trust_remote_code(model_ids) -> list[str]:
    """Let the own code of these models, and of no other, run in this process: the explicit, per-model opt-in that a
    chapter's ``TRUST_REMOTE_CODE`` parameter gives (a notebook has no ``load_model`` call to pass
    ``trust_remote_code=True`` to). It replaces any earlier list; ``[]`` trusts none. Each id is still checked as
    ``load_model(..., trust_remote_code=True)`` checks it (hub code only at a pinned commit). Returns the list."""
    if isinstance(model_ids, str) or not all(isinstance(m, str) and m for m in model_ids):
        raise RmlibError(f"trust_remote_code takes a list of model ids, not {model_ids!r}")
    _TRUSTED.clear()
    _TRUSTED.update(model_ids)
    return sorted(_TRUSTED)


def trusted_models() -> list[str]:
    """The ids :func:`trust_remote_code` named in this process."""
    return sorted(_TRUSTED)


def is_trusted(spec: ModelSpec, model_id: str, asked: bool) -> bool:
    """Whether the model's own code may run: asked for in the load options, or named by :func:`trust_remote_code`
    (by the id it was requested under or its registry id)."""
    return bool(asked) or model_id in _TRUSTED or spec.id in _TRUSTED
