"""Cached model files are built atomically and checked before use (issue #11, defect 4): de-quantised embedded
models and trained checkpoints. The embedded tests de-quantise the real SmolLM2 GGUF once, cold, in two processes
at the same time (~40 s on 2 cores); the checkpoint tests use tiny models."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest
import torch

from rmlib.models import CacheWarning, LoadOptions, ModelError, load_model
from rmlib.registry import get_spec
from rmlib.trained import local_rm_dir

# `rmlib verify` checks the book's results folder too; these tests check the cache alone, whatever book is built here
NO_RESULTS = ["--results", tempfile.mkdtemp(prefix="rmlib-no-results-")]  # an empty folder (#62: a missing one is refused)


PROMPT = "What, in one word, is the greatest thing ever?"


SMOL = "smollm2-135m-instruct"

_COLD_LOAD = """
    import sys
    from pathlib import Path
    import numpy as np
    from rmlib.models import load_model
    from rmlib.engine import sweep
    lm = load_model("smollm2-135m-instruct", head="lm", dtype="bfloat16")
    df = sweep(lm, "What, in one word, is the greatest thing ever?", tokens=range(1000, 1100),
               cache_root=Path(sys.argv[1]), progress=False).frame
    np.save(sys.argv[2], df.logprob.to_numpy())
"""


@pytest.fixture(scope="module")
def cold_cache(tmp_path_factory):
    """Two processes de-quantise SmolLM2 into the same empty cache at the same time. Beside the targets sit
    temporary folders under the names the old code used for every writer (another process's work in progress)."""
    from rmlib.models.embedded import dequantized_path
    root = tmp_path_factory.mktemp("cold")
    env = {**os.environ, "RMLIB_CACHE_DIR": str(root / "cache"), "TQDM_DISABLE": "1"}
    spec = get_spec(SMOL)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RMLIB_CACHE_DIR", str(root / "cache"))
        strangers = [dequantized_path(spec, dt).with_name(dequantized_path(spec, dt).name + ".tmp")
                     for dt in (torch.float32, torch.bfloat16)]
    for s in strangers:
        s.mkdir(parents=True)
        (s / "another-writer.txt").write_text("work in progress")
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(_COLD_LOAD), str(root / f"sweeps{i}"),
                               str(root / f"logprobs{i}.npy")], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]
    results = [p.communicate(timeout=900) + (p.returncode,) for p in procs]
    return {"root": root, "cache": root / "cache", "results": results, "strangers": strangers}


@pytest.mark.embedded
@pytest.mark.slow
@pytest.mark.xdist_group("cold_cache")  # its module fixture set up once (#61: on both workers, 28 + 30 s)
def test_two_processes_cold_loading_one_embedded_model_both_succeed(cold_cache):
    for out, err, rc in cold_cache["results"]:
        assert rc == 0, err[-3000:]
    a, b = (np.load(cold_cache["root"] / f"logprobs{i}.npy") for i in range(2))
    np.testing.assert_array_equal(a, b)
    assert np.isfinite(a).all() and (a < 0).all()
    for stranger in cold_cache["strangers"]:  # nobody else's temporary folder was touched or published
        assert (stranger / "another-writer.txt").exists()
        assert not (stranger.with_name(stranger.name.removesuffix(".tmp")) / "another-writer.txt").exists()
    folders = sorted((cold_cache["cache"] / "dequantized").glob(f"{SMOL}-*"))
    copies = [f for f in folders if not f.name.endswith((".tmp", "-tokenizer"))]
    assert [f.name.endswith("bfloat16") for f in copies] == [False, True]
    assert len([f for f in folders if f.name.endswith("-tokenizer")]) == 1  # the GGUF's tokenizer, converted once


@pytest.mark.embedded
@pytest.mark.slow
@pytest.mark.xdist_group("cold_cache")  # its module fixture set up once (#61: on both workers, 28 + 30 s)
def test_a_flipped_bit_in_dequantized_weights_is_caught_and_rebuilt(cold_cache, monkeypatch):
    from rmlib.storage.integrity import _full_checked
    from rmlib.models.embedded import dequantized_path
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(cold_cache["cache"]))
    folder = dequantized_path(get_spec(SMOL), torch.bfloat16)
    weights = folder / "model.safetensors"
    reference = {k: v.clone() for k, v in load_model(SMOL, head="lm", dtype="bfloat16").model.state_dict().items()}
    with open(weights, "r+b") as f:  # one bit, in the middle of the tensor data
        f.seek(weights.stat().st_size // 2)
        byte = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([byte[0] ^ 0x04]))
    _full_checked.clear()  # a new process would hash the file again
    with pytest.warns(CacheWarning, match="sha256 differs"):
        lm = load_model(SMOL, head="lm", dtype="bfloat16")
    got = lm.model.state_dict()
    assert all(torch.equal(got[k], reference[k]) for k in reference)
    assert not list(folder.parent.glob(folder.name + ".corrupt-*"))  # derived data: the damaged copy is not kept


@pytest.mark.embedded
@pytest.mark.slow
@pytest.mark.xdist_group("cold_cache")  # its module fixture set up once (#61: on both workers, 28 + 30 s)
def test_verify_repairs_a_damaged_dequantized_copy(cold_cache, monkeypatch, capsys):
    from rmlib.cli import main
    from rmlib.models.embedded import dequantized_path, tokenizer_path
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(cold_cache["cache"]))
    weights = dequantized_path(get_spec(SMOL), torch.bfloat16) / "model.safetensors"
    vocabulary = tokenizer_path(get_spec(SMOL)) / "tokenizer.json"
    for damaged in (weights, vocabulary):
        with open(damaged, "r+b") as f:
            f.seek(100)  # inside the header, which the quick check samples
            f.write(b"\x00")
    assert main(["verify", *NO_RESULTS]) == 0
    out = capsys.readouterr().out
    assert out.count("rebuilt from the GGUF") == 2  # the weights and the tokenizer converted from the GGUF
    assert "-tokenizer  tokenizer.json: sampled sha256 differs" in out
    assert main(["verify", "--full", *NO_RESULTS]) == 0
    out = capsys.readouterr().out
    assert "corrupt" not in out.split("summary:")[0] and "every byte hashed" in out


# ---------------------------------------------------------------- trained checkpoints

@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    return tmp_path


def _export_tiny(name, run_extra=None):
    from rmlib.models.tiny import tiny_model
    from rmlib.train.export import export as _export
    model, tok = tiny_model("llama", head="rm")
    out = local_rm_dir(name)
    out.parent.mkdir(parents=True, exist_ok=True)
    run = {"base_model": "tiny-llama", "tuning": "full", "run_hash": "abc123", "step": 4, **(run_extra or {})}
    _export(model, tok, out, run, "float32")
    return model, out


def test_export_uses_a_temporary_folder_of_its_own(cache):
    """Defect 4 (train.py): every export used <out>.tmp and deleted it first, clobbering a concurrent export."""
    out = local_rm_dir("mine")
    stranger = out.with_name(out.name + ".tmp")
    stranger.mkdir(parents=True)
    (stranger / "another-writer.txt").write_text("work in progress")
    model, out = _export_tiny("mine")
    assert (stranger / "another-writer.txt").exists() and not (out / "another-writer.txt").exists()
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]  # our own temporary folder is gone
    lm = load_model("local:mine", dtype="float32")
    assert torch.equal(lm.model.score.weight, model.score.weight)


def test_a_changed_checkpoint_is_refused(cache):
    """Defect 4: trained checkpoints carry sha256 hashes; one flipped bit is refused, not loaded."""
    _, out = _export_tiny("flipped")
    weights = next(out.glob("model*.safetensors"))
    data = bytearray(weights.read_bytes())
    data[len(data) - 7] ^= 0x01
    weights.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="not the one rmlib exported .*sha256"):
        load_model("local:flipped", dtype="float32")
    from rmlib.engine import verify_cache
    statuses = {f.path.name: f.status for f in verify_cache(full=True) if f.kind == "checkpoint"}
    assert statuses == {"flipped": "corrupt"}


def test_a_checkpoint_from_before_hashes_loads_with_a_warning(cache):
    from rmlib.storage.integrity import MANIFEST
    _, out = _export_tiny("legacy")
    (out / MANIFEST).unlink()
    with pytest.warns(CacheWarning, match="older rmlib"):
        load_model("local:legacy", dtype="float32")


def test_a_checkpoint_exported_again_with_other_weights_is_not_served_old_sweeps(cache):
    """Defect 1 ("anything else"): a local RM's key used only its run hash, so new weights under the same run
    were served the old weights' cached scores. The key now holds the sha256 of its files."""
    from rmlib.engine import sweep
    from rmlib.models.tiny import tiny_model
    from rmlib.train.export import export as _export
    _export_tiny("again")
    first = sweep(load_model("local:again", dtype="float32"), PROMPT, tokens=range(20), progress=False)
    model, tok = tiny_model("llama", head="rm", seed=1)
    _export(model, tok, local_rm_dir("again"), {"base_model": "tiny-llama", "tuning": "full", "run_hash": "abc123",
                                                "step": 4}, "float32")
    second = sweep(load_model("local:again", dtype="float32"), PROMPT, tokens=range(20), progress=False)
    assert not second.cached and first.meta["revision"] != second.meta["revision"]
    assert not np.allclose(first.frame.score, second.frame.score)


def test_an_export_changed_in_place_is_not_served_from_the_sweep_index(cache):
    """#62 wrong number 1, for rmlib's own exports: the index took the weights' fingerprint from the manifest's
    recorded hashes without reading the files, so other weights written over model.safetensors (same size, mtime
    restored) were served the old cached scores without a load. The fingerprint now hashes the files (kept per
    file state), so the request loads the model, and the load refuses the changed checkpoint."""
    import os
    from rmlib.engine import token_rewards
    from rmlib.models import clear
    from rmlib.models.tiny import tiny_model
    _, out = _export_tiny("inplace")
    token_rewards("local:inplace", PROMPT, tokens=slice(0, 20), load=LoadOptions(dtype="float32"), progress=False)
    weights = next(out.glob("model*.safetensors"))
    st = weights.stat()
    other, _ = tiny_model("llama", head="rm", seed=5)
    other.save_pretrained(cache / "other")
    data = (cache / "other" / "model.safetensors").read_bytes()
    assert len(data) == st.st_size
    with open(weights, "r+b") as f:
        f.write(data)
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns))
    clear()
    with pytest.raises(ModelError, match="not the one rmlib exported"):
        token_rewards("local:inplace", PROMPT, tokens=slice(0, 20), load=LoadOptions(dtype="float32"), progress=False)
