"""rmlib.models.cache: one request resolves its model id once (#41 item 4: the id was looked up in the registry for
the cache key and again by the loader), the spec it found is the one loaded, and a cached model is served again."""
from __future__ import annotations

import pytest

from rmlib import registry
from rmlib.models import cache


@pytest.fixture
def lookups(monkeypatch):
    """Counts the registry's lookups (every resolution of an id reads the registry once)."""
    calls = []
    real = registry.registry

    def counting():
        calls.append(1)
        return real()

    monkeypatch.setattr(registry, "registry", counting)
    cache.clear()
    yield calls
    cache.clear()


def test_a_cached_load_resolves_its_id_once_and_a_hit_once(lookups):
    lm = cache.cached_model("tiny-llama", head="lm", dtype="float32")
    assert len(lookups) == 1 and lm.spec.id == "tiny-llama"
    assert cache.cached_model("tiny-llama", head="lm", dtype="float32") is lm and len(lookups) == 2
    assert cache.release("tiny-llama", head="lm", dtype="float32") and not cache.release("tiny-llama", head="lm",
                                                                                          dtype="float32")
