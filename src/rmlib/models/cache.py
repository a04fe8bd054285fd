"""One process-wide cache of loaded models: a chapter sweeps several prompts with the same model, and loads it once.

The key is the model id, its registry revision (a retrained ``local:`` name is another model) and the
:class:`LoadOptions`, field by field. :func:`release` drops one model (e.g. after evaluating a checkpoint) and
:func:`clear` all of them; :func:`rmlib.models.load_model` always loads a fresh copy.
"""
from __future__ import annotations

from dataclasses import replace

from rmlib.models.base import LoadedModel, LoadOptions
from rmlib.models.loading import load_model
from rmlib.registry import ModelSpec, spec_at

__all__ = ["cached_model", "release", "clear"]

_loaded: dict[tuple, LoadedModel] = {}


def _key(model_id: str, options: LoadOptions) -> tuple[tuple, ModelSpec]:
    """The cache key of a request, and the spec it was made from (looked up once, passed down to the loader)."""
    spec = spec_at(model_id, options.revision)
    return (model_id, spec.revision, replace(options, head=options.head or spec.kind)), spec


def cached_model(model_id: str, options: LoadOptions | None = None, **fields) -> LoadedModel:
    """The model loaded once per process with these options (``head`` defaults to the registry's kind)."""
    key, spec = _key(model_id, LoadOptions.of(options, **fields))
    if key not in _loaded:
        _loaded[key] = load_model(model_id, key[2], spec=spec)
    return _loaded[key]


def release(model_id: str, options: LoadOptions | None = None, **fields) -> bool:
    """Forget one cached model (its memory is freed when nothing else holds it); True if it was cached."""
    return _loaded.pop(_key(model_id, LoadOptions.of(options, **fields))[0], None) is not None


def clear() -> None:
    """Forget every cached model."""
    _loaded.clear()
