"""Bad inputs of #24 items 3, 4, 12 and 14 that once gave a silent wrong result, a misleading message or a raw
traceback: a slice's step, a string or a tensor for tokens, a file as cache_root, a float or string seed, --top -3,
and `rmlib plan` saying "done" for a job whose tokens or seed differ from what is cached."""
from __future__ import annotations

import pytest
import torch

from rmlib.cli import main
from rmlib.engine import SweepError, plan_status, run_plan, sweep, sweep_index
from rmlib.models import LoadOptions, ModelError, clear, load_model

PROMPT = "What, in one word, is the greatest thing ever?"
LOAD = {"head": "rm", "dtype": "float32", "allow_untrained_head": True}


def test_a_slices_step_is_honoured_by_the_sweep(tiny_rms, tmp_path):
    res = sweep(tiny_rms["llama"], PROMPT, tokens=slice(300, None, 7), cache_root=tmp_path, progress=False)
    assert res.frame.token_id.tolist() == [300, 307, 314]  # was every id from 300 to 319


def test_tokens_as_a_string_is_refused_and_a_tensor_is_taken(tiny_rms, tmp_path):
    with pytest.raises(SweepError, match=r"string; in Python give slice\(LO, HI\) or range"):
        sweep(tiny_rms["llama"], PROMPT, tokens="0:10", cache_root=tmp_path, progress=False)
    res = sweep(tiny_rms["llama"], PROMPT, tokens=torch.tensor([5, 1, 9]), cache_root=tmp_path, progress=False)
    assert res.frame.token_id.tolist() == [5, 1, 9]


def test_a_file_as_cache_root_is_a_clear_error(tiny_rms, tmp_path):
    path = tmp_path / "not-a-folder"
    path.write_text("x")
    with pytest.raises(SweepError, match="is a file, not a folder"):
        sweep(tiny_rms["llama"], PROMPT, tokens=slice(0, 8), cache_root=path, progress=False)
    with pytest.raises(SweepError, match="lies under .*which is a file"):
        sweep(tiny_rms["llama"], PROMPT, tokens=slice(0, 8), cache_root=path / "sweeps", progress=False)


@pytest.mark.parametrize("root", ["", "  "])
def test_an_empty_cache_root_is_refused_not_taken_as_the_current_folder(root, tiny_rms, tmp_path, monkeypatch):
    """#39 item 7: cache_root="" wrote the sweep's folder and its request entry into the current folder."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SweepError, match=f"cache_root is {root!r}, which would mean the current folder"):
        sweep(tiny_rms["llama"], PROMPT, tokens=slice(0, 8), cache_root=root, progress=False)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad, message", [
    ({"seed": 1.5}, r"seed=1.5 .*integer in \[0, 2\*\*32\)"),
    ({"seed": "1"}, r"seed='1' .*integer in \[0, 2\*\*32\)"),
    ({"seed": True}, "seed=True"),
    ({"seed": -1}, "seed=-1"),
    ({"seed": 2**70}, r"seed=1180591620717411303424 .*integer in \[0, 2\*\*32\)"),  # #39: torch's OverflowError
    ({"allow_untrained_head": "yes"}, "allow_untrained_head='yes' .*True or False"),
    ({"dtype": "fp8"}, "unknown dtype 'fp8'"),
    ({"head": "reward"}, "head must be"),
])
def test_loading_options_of_the_wrong_type_are_refused(bad, message):
    with pytest.raises(ModelError, match=message):
        load_model("tiny-llama", LoadOptions.of(**bad))
    with pytest.raises(ModelError, match=message):
        LoadOptions(**bad)


def test_cli_top_must_be_positive(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as exc:
        main(["sweep", "--model", "tiny-qwen2", "--prompt", PROMPT, "--dtype", "float32", "--top", "-3"])
    assert exc.value.code == 2 and "positive number of rows" in capsys.readouterr().err


@pytest.fixture
def fingerprinted(tmp_path, monkeypatch):
    """tiny models given a fixed weight fingerprint (they have none that is cheap), as test_sweep_index.py does."""
    monkeypatch.setattr(sweep_index, "fingerprint", lambda spec, options: "weights-v1")
    clear()
    yield tmp_path / "sweeps"
    clear()


def test_plan_status_is_the_jobs_own_request_key(fingerprinted, data_dir):
    root = fingerprinted
    plan = {"models": ["tiny-llama"], "prompts": ["greatest"], "load": LOAD, "tokens": "0:20"}
    assert [d for _, d in plan_status(plan, cache_root=root)] == [False]
    assert [r.status for r in run_plan(plan, cache_root=root, progress=False).results] == ["done"]
    assert [d for _, d in plan_status(plan, cache_root=root)] == [True]
    # the same slice length elsewhere, another seed, another mode: not done (all were "done" before)
    assert [d for _, d in plan_status({**plan, "tokens": "100:120"}, cache_root=root)] == [False]
    assert [d for _, d in plan_status({**plan, "load": {**LOAD, "seed": 1}}, cache_root=root)] == [False]
    assert [d for _, d in plan_status({**plan, "mode": "paper"}, cache_root=root)] == [False]
    # a damaged shard: not done (moved aside with a warning), and the run recomputes it
    shard = next(p for p in root.glob("*/shard-*.parquet"))
    shard.write_bytes(shard.read_bytes()[:-5] + b"xxxxx")
    with pytest.warns(Warning, match="sha256"):
        assert [d for _, d in plan_status(plan, cache_root=root)] == [False]


def test_plan_status_never_guesses_done(tmp_path, data_dir):
    """Without a cheap fingerprint (tiny models) a finished job is unknown (None), not done; answers jobs too."""
    clear()
    plan = {"models": ["tiny-llama"], "prompts": ["greatest"], "load": LOAD, "tokens": "0:20"}
    run_plan(plan, cache_root=tmp_path, progress=False)
    assert [d for _, d in plan_status(plan, cache_root=tmp_path)] == [None]
    answers = {**plan, "kind": "answers", "answers": ["love"]}
    del answers["tokens"]
    assert [d for _, d in plan_status(answers, cache_root=tmp_path)] == [None]
