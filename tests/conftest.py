"""Shared fixtures: tiny random models (fast) and the real embedded SmolLM2 (loaded once)."""
from __future__ import annotations

import json

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


def notebook_markdown(nb_path) -> str:
    """All markdown an executed notebook displayed; fails on any error output."""
    nb = json.loads(nb_path.read_text())
    parts = []
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            assert o["output_type"] != "error", o
            parts.append("".join(o.get("data", {}).get("text/markdown", "")))
    return "\n".join(parts)
