"""rmlib.registry: what a model id names, without loading it."""
from __future__ import annotations

from rmlib import registry


def test_reference_lm():
    assert registry.reference_lm("smollm2-135m-instruct") == "smollm2-135m-instruct"
    assert registry.reference_lm("Ray2333/GRM-gemma2-2B-rewardmodel-ft") is None
