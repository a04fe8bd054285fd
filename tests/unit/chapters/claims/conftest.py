"""Planted results for the claims tests: a chapter's typed results built from only the fields a test sets."""
from __future__ import annotations

import typing

import pytest
from pydantic import BaseModel

from rmbook.analysis.results import result_type
from rmbook.analysis.claims import Evidence
from rmbook.analysis.claims.evidence import _strip
from rmbook.report.brief import words as say  # the page's renderer of the evidence sentences, as the notebook passes it


def _build(annotation, value):
    """``value`` (plain dicts and lists) as the typed objects ``annotation`` describes, without requiring the
    fields the test leaves out (``model_construct``): a planted record still has the real type's fields and no
    others, so a claim's read of an undeclared field fails as it would on real results."""
    a = _strip(annotation)
    if isinstance(a, type) and issubclass(a, BaseModel) and isinstance(value, dict):
        fields = a.model_fields
        unknown = [k for k in value if k not in fields and a.model_config.get("extra") != "allow"]
        assert not unknown, f"{a.__name__} has no fields {unknown}"
        return a.model_construct(**{k: _build(fields[k].annotation, v) if k in fields else v
                                    for k, v in value.items()})
    origin, args = typing.get_origin(a), typing.get_args(a)
    if origin is dict and isinstance(value, dict):
        return {k: _build(args[1], v) for k, v in value.items()}
    if origin is list and isinstance(value, list):
        return [_build(args[0], v) for v in value]
    return value


def plant(chapter: str, data: dict) -> BaseModel:
    return _build(result_type(chapter), data)


@pytest.fixture
def planted():
    """``planted({chapter: partial results as dicts, ...})`` -> Evidence over typed planted results."""
    return lambda results: Evidence({c: plant(c, d) for c, d in results.items()}, say=say)
