"""rmlib.engine.sweep_index: a cached sweep is served without loading its model, and only when it checks out."""
from __future__ import annotations

import pandas as pd
import pytest

from rmlib import engine
from rmlib.engine import rewards, sweep_index
from rmlib.models import clear
from rmlib.registry import get_spec

PROMPT = "What, in one word, is the greatest thing ever?"
TOKENS = slice(0, 48)


def _refuse_loading(*_, **__):
    raise AssertionError("the model was loaded although its sweep is cached")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache, and tiny-llama given a fixed weight fingerprint (tiny models have none that is cheap)."""
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(sweep_index, "fingerprint", lambda spec, options: "weights-v1")
    clear()
    yield tmp_path
    clear()


def test_a_cached_sweep_is_served_without_loading_the_model(cache, monkeypatch):
    first = engine.token_rewards("tiny-llama", PROMPT, tokens=TOKENS, progress=False)
    clear()
    monkeypatch.setattr(rewards, "resolve_model", _refuse_loading)
    again = engine.token_rewards("tiny-llama", PROMPT, tokens=TOKENS, progress=False)
    pd.testing.assert_frame_equal(first, again)
    assert (again["reward_kind"] == first["reward_kind"].iloc[0]).all()


def test_a_damaged_sweep_or_other_weights_are_not_served_from_the_index(cache, monkeypatch):
    first = engine.token_rewards("tiny-llama", PROMPT, tokens=TOKENS, progress=False)
    shard = next((cache / "sweeps").glob("*/shard-*.parquet"))
    shard.write_bytes(shard.read_bytes()[:-7] + b"damaged")
    clear()
    with monkeypatch.context() as mp:
        mp.setattr(rewards, "resolve_model", _refuse_loading)
        with pytest.warns(Warning, match="sha256"), pytest.raises(AssertionError, match="was loaded"):
            engine.token_rewards("tiny-llama", PROMPT, tokens=TOKENS, progress=False)
    repaired = engine.token_rewards("tiny-llama", PROMPT, tokens=TOKENS, progress=False)
    pd.testing.assert_frame_equal(first, repaired)
    # other weights under the same id (a retrained local: RM, a new GGUF) make another request: the model loads
    monkeypatch.setattr(sweep_index, "fingerprint", lambda spec, options: "weights-v2")
    monkeypatch.setattr(rewards, "resolve_model", _refuse_loading)
    with pytest.raises(AssertionError, match="was loaded"):
        engine.token_rewards("tiny-llama", PROMPT, tokens=TOKENS, progress=False)


def test_only_models_with_a_cheap_fingerprint_use_the_index():
    from rmlib.models import LoadOptions

    assert sweep_index.fingerprint(get_spec("tiny-llama"), LoadOptions()) is None
    assert sweep_index.fingerprint(get_spec("smollm2-135m-instruct"), LoadOptions()).startswith("gguf-sha256:")
    assert sweep_index.request_key("tiny-llama", PROMPT) is None
