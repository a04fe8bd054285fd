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


def test_an_index_entry_answers_only_for_the_request_it_was_written_for(cache, monkeypatch):
    """#39 item 4: prompt A's entry copied over prompt B's made `rmlib sweep --prompt B` say "served from the cache
    without loading the model" and return A's rows. Now an entry records its request, model and prompt, and the
    sweep it points to must be of that model and prompt."""
    other = "What, in one word, is the best thing ever?"
    first_a = engine.token_rewards("tiny-llama", PROMPT, tokens=TOKENS, progress=False)
    first_b = engine.token_rewards("tiny-llama", other, tokens=TOKENS, progress=False)
    assert not first_a["reward"].equals(first_b["reward"])
    a, b = (sweep_index.request_key("tiny-llama", p, TOKENS) for p in (PROMPT, other))
    folder = sweep_index.index_dir()
    (folder / f"{b}.json").write_bytes((folder / f"{a}.json").read_bytes())
    assert sweep_index.lookup(b) is None and not sweep_index.listed(b)
    clear()
    with monkeypatch.context() as mp:
        mp.setattr(rewards, "resolve_model", _refuse_loading)
        with pytest.raises(AssertionError, match="was loaded"):  # not served: B is swept again
            engine.token_rewards("tiny-llama", other, tokens=TOKENS, progress=False)
    again = engine.token_rewards("tiny-llama", other, tokens=TOKENS, progress=False)
    pd.testing.assert_frame_equal(again, first_b)  # B's own rows, not A's
    # an entry naming request B but pointing at A's sweep is refused too: the sweep's own meta names prompt A
    import json
    entry = json.loads((folder / f"{a}.json").read_text()) | {"request": b, "prompt": other}
    (folder / f"{b}.json").write_text(json.dumps(entry))
    assert sweep_index.lookup(b) is None and not sweep_index.listed(b)
    assert sweep_index.lookup(b, expect=sweep_index.stands_for("tiny-llama", PROMPT)) is None


def test_only_models_with_a_cheap_fingerprint_use_the_index():
    from rmlib.models import LoadOptions

    assert sweep_index.fingerprint(get_spec("tiny-llama"), LoadOptions()) is None
    assert sweep_index.fingerprint(get_spec("smollm2-135m-instruct"), LoadOptions()).startswith("gguf-sha256:")
    assert sweep_index.request_key("tiny-llama", PROMPT) is None


def _save_tiny_rm(folder, seed):
    from rmlib.models.tiny import tiny_model
    model, tok = tiny_model("llama", head="rm", seed=seed)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)


@pytest.mark.parametrize("index_kept", [True, False])
def test_a_local_model_changed_in_place_is_never_served_its_old_scores(tmp_path, monkeypatch, index_kept):
    """#62 wrong number 1: a `local:` folder was fingerprinted by its files' names, sizes and mtimes, so other
    weights of the same size written over model.safetensors with the mtime restored (`touch -r`, `rsync -t`, a
    restored backup) were served the old weights' cached scores, off by up to 10, with or without the index. The
    fingerprint is now the files' content (sha256, re-hashed only when a file's inode, size, mtime or ctime moved:
    nothing can restore a ctime)."""
    import os
    import shutil
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    clear()
    folder, other = tmp_path / "rm", tmp_path / "other"
    _save_tiny_rm(folder, seed=1)
    _save_tiny_rm(other, seed=2)
    weights = folder / "model.safetensors"
    assert weights.stat().st_size == (other / "model.safetensors").stat().st_size
    model = f"local:{folder}"
    first = engine.token_rewards(model, PROMPT, tokens=TOKENS, progress=False)
    before = weights.stat()
    shutil.copyfile(other / "model.safetensors", weights)  # in place: same inode, same size
    os.utime(weights, ns=(before.st_atime_ns, before.st_mtime_ns))  # touch -r: the mtime restored
    assert (weights.stat().st_size, weights.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    if not index_kept:
        shutil.rmtree(tmp_path / "cache" / "sweep_requests")
    clear()
    again = engine.token_rewards(model, PROMPT, tokens=TOKENS, progress=False)
    clear()
    shutil.rmtree(tmp_path / "cache")
    own = engine.token_rewards(model, PROMPT, tokens=TOKENS, progress=False)
    assert not first["reward"].equals(own["reward"])  # the two weights do score differently
    pd.testing.assert_series_equal(again["reward"], own["reward"])
    clear()
