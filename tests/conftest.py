"""Shared fixtures: tiny random models (fast) and the real embedded SmolLM2 (loaded once)."""
from __future__ import annotations

import pytest

from rmlib.models import load_model

PROMPT = "What, in one word, is the greatest thing ever?"
FAMILIES = ["llama", "gemma2", "gemma3", "qwen2"]


@pytest.fixture(scope="session")
def tiny_rms():
    return {f: load_model(f"tiny-{f}", head="rm", dtype="float32", allow_untrained_head=True) for f in FAMILIES}


@pytest.fixture(scope="session")
def tiny_lms():
    return {f: load_model(f"tiny-{f}", head="lm", dtype="float32") for f in FAMILIES}


@pytest.fixture(scope="session")
def smollm2_lm():
    return load_model("smollm2-135m-instruct", head="lm", dtype="float32")
