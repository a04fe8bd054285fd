"""Bad input gets a clear error and loses nothing (issue #11, defects 5-10). tests/README.md has the catalogue."""
from __future__ import annotations

import io
import json
import os
import re
import sys
import time

import numpy as np
import pandas as pd
import pytest
import torch

from rmlib.cli import main
from rmlib.models import HubUnavailableError, LoadOptions, ModelError, RemoteCodeError, load_model
from rmlib.registry import registry
from rmlib.engine import SweepError, score_answers, sweep
from rmlib.models.templates import TemplateError

PROMPT = "What, in one word, is the greatest thing ever?"


# ---------------------------------------------------------------- 5. non-finite scores

def _rm_with_head_weight(value):
    lm = load_model("tiny-llama", head="rm", dtype="float32", allow_untrained_head=True)
    with torch.no_grad():
        lm.model.score.weight[0, 0] = value
    return lm


def test_infinite_scores_are_refused_and_nothing_is_marked_complete(tmp_path):
    lm = _rm_with_head_weight(float("inf"))
    with pytest.raises(SweepError, match="non-finite .*inf"):
        sweep(lm, PROMPT, tokens=range(20), cache_root=tmp_path / "s", progress=False)
    with pytest.raises(SweepError, match="non-finite .*inf"):
        score_answers(lm, [PROMPT], ["love", "peace"], cache_root=tmp_path / "a", progress=False)
    assert not list(tmp_path.rglob("COMPLETE")) and not list(tmp_path.rglob("shard-*.parquet"))


# ---------------------------------------------------------------- 6. context length

def test_a_prompt_longer_than_the_context_is_refused_with_its_length_and_the_limit(tiny_rms, tiny_lms, tmp_path):
    long_prompt = "What is the best thing in the world? " * 40
    for lm in (tiny_rms["llama"], tiny_lms["qwen2"]):
        assert lm.max_length == 256
        with pytest.raises(SweepError, match=r"is \d+ tokens .* at most 256 tokens"):
            sweep(lm, long_prompt, tokens=range(5), cache_root=tmp_path, progress=False)
    assert not list(tmp_path.rglob("COMPLETE"))


def test_a_thousand_word_answer_is_refused(tiny_rms, tiny_lms, tmp_path):
    essay = " ".join(["peace"] * 1000)
    for lm in (tiny_rms["gemma2"], tiny_lms["llama"]):
        with pytest.raises(SweepError, match=r"the answer 'peace peace.* at most 256 tokens"):
            score_answers(lm, [PROMPT], ["love", essay], cache_root=tmp_path, progress=False)


# ---------------------------------------------------------------- 10. smaller ones

@pytest.mark.parametrize("batch_size", [0, -3, 2.5, True])
def test_bad_batch_sizes_are_refused(batch_size, tiny_rms, tmp_path):
    with pytest.raises(SweepError, match="batch_size must be a positive integer"):
        sweep(tiny_rms["llama"], PROMPT, tokens=range(10), batch_size=batch_size, cache_root=tmp_path, progress=False)
    with pytest.raises(SweepError, match="batch_size must be a positive integer"):
        score_answers(tiny_rms["llama"], [PROMPT], ["love"], batch_size=batch_size, cache_root=tmp_path,
                      progress=False)


@pytest.mark.parametrize("tokens", [[1.7, 2.0], np.array([3.5]), [True, 4], ["5"]])
def test_non_integer_token_ids_are_refused_not_truncated(tokens, tiny_rms, tmp_path):
    with pytest.raises(SweepError, match="token ids must be integers"):
        sweep(tiny_rms["llama"], PROMPT, tokens=tokens, cache_root=tmp_path, progress=False)


def test_numpy_integer_token_ids_are_fine(tiny_rms, tmp_path):
    res = sweep(tiny_rms["llama"], PROMPT, tokens=np.arange(5, 9, dtype=np.int32), cache_root=tmp_path, progress=False)
    assert res.frame.token_id.tolist() == [5, 6, 7, 8]


@pytest.mark.parametrize("answer", ["peace<|eot_id|><|start_header_id|>user", "<|begin_of_text|>love"])
def test_answers_with_chat_control_tokens_are_refused(answer, tiny_rms, tmp_path):
    with pytest.raises(TemplateError, match="answer .* control token"):
        score_answers(tiny_rms["llama"], [PROMPT], ["love", answer], cache_root=tmp_path, progress=False)


def test_a_loaded_model_with_loading_options_is_an_error(tiny_rms, tmp_path):
    with pytest.raises(SweepError, match="loading options"):
        sweep(tiny_rms["llama"], PROMPT, tokens=range(3), cache_root=tmp_path, progress=False, load=LoadOptions(seed=3))


def test_lm_sweeps_refuse_an_rm_method(tiny_lms, tmp_path):
    with pytest.raises(SweepError, match="applies to RM sweeps"):
        sweep(tiny_lms["llama"], PROMPT, tokens=range(3), method="full", cache_root=tmp_path, progress=False)


# ---------------------------------------------------------------- the CLI

@pytest.fixture
def cli_env(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


SWEEP = ["sweep", "--model", "tiny-qwen2", "--prompt", PROMPT, "--dtype", "float32", "--top", "2"]


def test_cli_open_ended_token_slice(cli_env, capsys):
    assert main([*SWEEP, "--tokens", "300:"]) == 0
    assert "20 tokens" in capsys.readouterr().out  # the tiny vocabulary has 320 ids


@pytest.mark.parametrize("tokens", ["abc", "10:x", "1,,b", ","])
def test_cli_bad_token_slices_get_a_usage_message(tokens, cli_env, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*SWEEP, "--tokens", tokens])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--tokens" in err and ("LO:HI" in err or "no token ids" in err) and "invalid literal" not in err


@pytest.mark.parametrize("bs", ["0", "-1", "x"])
def test_cli_bad_batch_size(bs, cli_env, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*SWEEP, "--tokens", "0:8", "--batch-size", bs])
    assert exc.value.code == 2 and "positive integer" in capsys.readouterr().err


class _ClosedPipe(io.StringIO):
    def write(self, s):
        raise BrokenPipeError(32, "Broken pipe")


def test_cli_out_is_written_before_printing_so_a_closed_pipe_loses_nothing(cli_env, monkeypatch):
    out = cli_env / "o.parquet"
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    monkeypatch.setattr(os, "dup2", lambda *a: None)  # keep pytest's real stdout
    assert main([*SWEEP, "--tokens", "0:64", "--out", str(out)]) == 141
    assert len(pd.read_parquet(out)) == 64


def test_cli_out_is_atomic(cli_env, monkeypatch):
    out = cli_env / "o.parquet"
    real = pd.DataFrame.to_parquet

    def killed_mid_write(self, path, *a, **k):
        open(path, "wb").write(b"PAR1")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_parquet", killed_mid_write)
    assert main([*SWEEP, "--tokens", "0:8", "--out", str(out)]) == 130
    monkeypatch.setattr(pd.DataFrame, "to_parquet", real)
    assert not out.exists() and not list(cli_env.glob(".o.parquet*"))


def test_cli_out_in_a_missing_folder_fails_before_sweeping(cli_env, capsys):
    assert main([*SWEEP, "--tokens", "0:8", "--out", str(cli_env / "nope" / "o.parquet")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (cli_env / "cache" / "sweeps").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a GPU")
def test_cli_device_cuda_without_a_gpu(cli_env, capsys):
    assert main([*SWEEP, "--tokens", "0:8", "--device", "cuda"]) == 2
    assert "no CUDA GPU" in capsys.readouterr().err
    assert main([*SWEEP, "--tokens", "0:8", "--device", "gpu"]) == 2
    assert "unknown device" in capsys.readouterr().err


def test_cli_offline_hub_id_fails_fast_and_says_how_to_use_a_local_copy(cli_env, monkeypatch, capsys):
    monkeypatch.setenv("HF_HOME", str(cli_env / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    t0 = time.perf_counter()
    assert main(["sweep", "--model", "someorg/no-such-rm", "--prompt", PROMPT]) == 2
    assert time.perf_counter() - t0 < 20
    err = capsys.readouterr().err
    assert "HF_HUB_OFFLINE" in err and "local:" in err and "Traceback" not in err


def test_an_unreachable_hub_is_detected_in_seconds(cli_env, monkeypatch):
    from rmlib.models import hub as models
    monkeypatch.setenv("HF_HOME", str(cli_env / "hf"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    for var in ("HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # the discard port: connection refused at once
    models._hub_unreachable.cache_clear()
    t0 = time.perf_counter()
    with pytest.raises(HubUnavailableError, match="unreachable .*local:"):
        load_model("someorg/no-such-rm")
    assert time.perf_counter() - t0 < 20


# ---------------------------------------------------------------- 7. remote code

def _local_model_with_own_code(tmp_path, model_type):
    from rmlib.models.tiny import tiny_model
    model, tok = tiny_model("llama", head="rm")
    folder = tmp_path / "own-code-rm"
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    cfg = json.loads((folder / "config.json").read_text())
    cfg["model_type"] = model_type
    cfg["auto_map"] = {"AutoConfig": "modeling_custom.CustomConfig",
                       "AutoModelForSequenceClassification": "modeling_custom.CustomRM"}
    (folder / "config.json").write_text(json.dumps(cfg))
    (folder / "modeling_custom.py").write_text("raise SystemExit('this code must not run without an opt-in')\n")
    return folder


@pytest.mark.parametrize("model_type", ["rmlib-custom", "llama"])
def test_local_model_with_its_own_code_needs_the_same_opt_in_and_never_prompts(model_type, tmp_path, monkeypatch):
    """Before: a custom model type made transformers ask y/N on stdin (hanging a kernel); a known type with an
    auto_map silently loaded transformers' own class instead of the model's code."""
    folder = _local_model_with_own_code(tmp_path, model_type)

    def no_prompt(*a, **k):
        raise AssertionError("transformers asked y/N on stdin")

    monkeypatch.setattr("builtins.input", no_prompt)
    with pytest.raises(RemoteCodeError, match="trust_remote_code=True"):
        load_model(f"local:{folder}", dtype="float32")


def test_remote_code_models_need_a_pinned_revision(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the refusal must come before any download
    with pytest.raises(RemoteCodeError, match="--revision"):
        load_model("LxzGordon/URM-LLaMa-3.1-8B", trust_remote_code=True)
    with pytest.raises(RemoteCodeError, match="pinned commit"):
        load_model("someorg/custom-rm", trust_remote_code=True, revision="main")
    from rmlib.models.policy import check_remote_code as _check_remote_code
    pinned = [s for s in registry().values() if s.revision]
    assert {s.id for s in pinned} == {"nicolinho/QRM-Gemma-2-27B", "nicolinho/QRM-Llama3.1-8B",
                                      "RLHFlow/ArmoRM-Llama3-8B-v0.1"}
    for spec in pinned:
        _check_remote_code(spec, True)  # no error: pinned to a 40-hex commit
    with pytest.raises(ModelError, match="only hub models have revisions"):
        load_model("tiny-llama", revision="0" * 40)


def test_pickle_weights_are_refused_unless_allowed(tmp_path):
    from rmlib.models.tiny import tiny_model
    model, tok = tiny_model("llama", head="rm")
    folder = tmp_path / "pickle-rm"
    folder.mkdir()
    model.config.save_pretrained(folder)
    tok.save_pretrained(folder)
    torch.save(model.state_dict(), folder / "pytorch_model.bin")
    with pytest.raises(ModelError, match="allow_pickle=True"):
        load_model(f"local:{folder}", dtype="float32")
    lm = load_model(f"local:{folder}", dtype="float32", allow_pickle=True)
    assert torch.equal(lm.model.score.weight, model.score.weight)


# ---------------------------------------------------------------- already handled before issue #11 (kept honest here)

@pytest.mark.parametrize("kwargs, error, message", [
    (dict(mode="exact"), SweepError, "mode must be one of"),
    (dict(method="fast"), SweepError, "method must be auto, shared_prefix or full"),
])
def test_unknown_mode_or_method(kwargs, error, message, tiny_rms, tmp_path):
    with pytest.raises(error, match=message):
        sweep(tiny_rms["llama"], PROMPT, tokens=range(3), cache_root=tmp_path, progress=False, **kwargs)


def test_paper_mode_for_an_lm_and_unknown_dtype(tiny_lms, tmp_path):
    with pytest.raises(SweepError, match="paper mode reproduces the RM pipeline"):
        sweep(tiny_lms["llama"], PROMPT, tokens=range(3), mode="paper", cache_root=tmp_path, progress=False)
    with pytest.raises(ModelError, match="unknown dtype 'fp8'"):
        load_model("tiny-llama", head="lm", dtype="fp8")


@pytest.mark.parametrize("prompts, answers, message", [
    ([], ["love"], "at least one prompt and one answer"),
    ([PROMPT], [], "at least one prompt and one answer"),
    ([PROMPT], ["love", "  "], "non-empty strings"),
    ([PROMPT], ["love", 3], "non-empty strings"),
])
def test_bad_answer_sets(prompts, answers, message, tiny_lms, tmp_path):
    with pytest.raises(SweepError, match=message):
        score_answers(tiny_lms["llama"], prompts, answers, cache_root=tmp_path, progress=False)


def test_a_full_disk_stops_the_sweep_cleanly_and_it_resumes(tiny_rms, tmp_path, monkeypatch, capsys):
    import errno
    import rmlib.engine.token_sweep as sweep_mod
    monkeypatch.setattr(sweep_mod, "CHUNK", 10)
    reference = sweep(tiny_rms["llama"], PROMPT, tokens=range(50), cache_root=tmp_path / "ref", progress=False).frame
    real_fsync, calls = os.fsync, {"n": 0}

    def full_disk(fd):
        calls["n"] += 1
        if calls["n"] >= 4:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        sweep(tiny_rms["llama"], PROMPT, tokens=range(50), cache_root=tmp_path / "run", progress=False)
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cli"))
    assert main([*SWEEP, "--tokens", "0:8"]) == 2
    assert "No space left on device" in capsys.readouterr().err
    monkeypatch.setattr(os, "fsync", real_fsync)  # space freed
    assert not list((tmp_path / "run").rglob("COMPLETE")) and not list((tmp_path / "run").rglob(".*tmp"))
    resumed = sweep(tiny_rms["llama"], PROMPT, tokens=range(50), cache_root=tmp_path / "run", progress=False)
    pd.testing.assert_frame_equal(resumed.frame, reference)


# ---------------------------------------------------------------- what loads is what scores (#39 item 1)

def _saved(tmp_path, family: str, head: str = "rm", name: str = "folder"):
    from rmlib.models.tiny import tiny_model
    model, tok = tiny_model(family, head=head)
    folder = tmp_path / name
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder, model


def test_a_local_checkpoint_missing_a_decoder_tensor_is_refused_not_filled_with_random_values(tmp_path):
    """Before: the missing tensor was drawn at random, the folder swept with exit 0, and two loads differed."""
    from safetensors.torch import load_file, save_file
    folder, _ = _saved(tmp_path, "llama")
    weights = load_file(folder / "model.safetensors")
    gone = next(k for k in weights if "layers.0.self_attn.q_proj" in k)
    save_file({k: v for k, v in weights.items() if k != gone}, folder / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(ModelError, match=r"missing \(they would be random\): " + re.escape(gone)):
        load_model(f"local:{folder}", dtype="float32")


def test_qwen2_weights_under_a_llama_config_are_refused_not_stripped_of_their_biases(tmp_path):
    """Before: the q/k/v biases were dropped with no message, and the model scored without them."""
    folder, _ = _saved(tmp_path, "qwen2")
    cfg = json.loads((folder / "config.json").read_text())
    cfg |= {"model_type": "llama", "architectures": ["LlamaForSequenceClassification"]}
    (folder / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelError, match=r"unexpected \(they would be dropped\): .*q_proj\.bias"):
        load_model(f"local:{folder}", dtype="float32")


def test_an_lm_given_a_new_reward_head_loses_only_its_lm_head(tmp_path):
    """The head swap the caller asks for is not damage: the LM's lm_head is left unread, the new head is fresh
    (and needs allow_untrained_head), and every decoder weight is the checkpoint's."""
    folder, lm = _saved(tmp_path, "llama", head="lm")
    with pytest.raises(ModelError, match="no trained reward head"):
        load_model(f"local:{folder}", dtype="float32")
    rm = load_model(f"local:{folder}", dtype="float32", allow_untrained_head=True)
    assert torch.equal(rm.model.model.layers[0].self_attn.q_proj.weight, lm.model.layers[0].self_attn.q_proj.weight)
    assert load_model(f"local:{folder}", head="lm", dtype="float32").model is not None


# ---------------------------------------------------------------- a folder's files that cannot be read (#39 item 6)

def _damage(folder, how):
    weights = folder / "model.safetensors"
    if how == "truncated":
        weights.write_bytes(weights.read_bytes()[:weights.stat().st_size // 2])
    elif how == "garbage":
        weights.write_bytes(bytes(range(256)) * 20)
    elif how == "empty":
        weights.write_bytes(b"")
    else:  # a link to a file that is not a model's
        weights.unlink()
        weights.symlink_to("/etc/hostname" if os.path.exists("/etc/hostname") else "/etc/passwd")


@pytest.mark.parametrize("how", ["truncated", "garbage", "empty", "symlink"])
def test_weights_that_cannot_be_read_are_named(how, tmp_path, capsys, monkeypatch):
    """Before: a raw SafetensorError ("header too large") that did not name the file, and a traceback from the CLI."""
    folder, _ = _saved(tmp_path, "llama")
    _damage(folder, how)
    where = re.escape(str(folder / "model.safetensors")) + (r" \(a link to /etc/\w+\)" if how == "symlink" else "")
    with pytest.raises(ModelError, match=where + r" is not a readable safetensors file \(Error while deserializing"):
        load_model(f"local:{folder}", dtype="float32")
    # restored afterwards (a bare `del` left the variable unset, and the next runner call in the same worker pointed
    # rmlib at the checkout's cache: tests/unit/test_cache_guard.py failed in CI)
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["sweep", "--model", f"local:{folder}", "--prompt", PROMPT, "--tokens", "0:4"]) == 2
    assert "is not a readable safetensors file" in capsys.readouterr().err


def test_a_config_that_is_not_an_object_is_named(tmp_path):
    """Before: TypeError "argument after ** must be a mapping, not list" from transformers."""
    folder, _ = _saved(tmp_path, "llama")
    (folder / "config.json").write_text("[1, 2]")
    with pytest.raises(ModelError, match=re.escape(str(folder / "config.json")) + " holds a JSON list, not the object"):
        load_model(f"local:{folder}", dtype="float32")
    (folder / "config.json").write_text("{not json")
    with pytest.raises(ModelError, match="config.json is damaged: it is not JSON"):
        load_model(f"local:{folder}", dtype="float32")


def test_a_folder_without_a_tokenizer_says_so(tmp_path):
    """Before: "Couldn't instantiate the backend tokenizer ... install sentencepiece or tiktoken"."""
    folder, _ = _saved(tmp_path, "llama")
    for p in folder.iterdir():
        if p.name.startswith(("tokenizer", "special_tokens", "vocab", "merges", "chat_template")):
            p.unlink()
    with pytest.raises(ModelError, match=f"{re.escape(str(folder))} holds no tokenizer .*copy the tokenizer files"):
        load_model(f"local:{folder}", dtype="float32")


@pytest.mark.parametrize("content, error", [(b"\xff\xfe\x00garbage", "UnicodeDecodeError"),
                                            (b"{not json", "JSONDecodeError"),
                                            (b'{"a": 1}', "KeyError")])
def test_a_damaged_tokenizer_json_is_named(content, error, tmp_path):
    """Before: "'utf-8' codec can't decode byte 0xff" (or a JSON/KeyError) without the folder's name."""
    folder, _ = _saved(tmp_path, "llama")
    (folder / "tokenizer.json").write_bytes(content)
    with pytest.raises(ModelError, match=f"the tokenizer in {re.escape(str(folder))} cannot be read \\({error}"):
        load_model(f"local:{folder}", dtype="float32")


class _RunsCode:
    ran = False

    def __reduce__(self):
        return (_RunsCode.mark, ())

    @staticmethod
    def mark():
        _RunsCode.ran = True


def test_a_pickle_that_would_run_code_is_refused_even_with_allow_pickle(tmp_path):
    """Before: refused by torch's weights_only unpickler, but as a raw UnpicklingError traceback."""
    folder, _ = _saved(tmp_path, "llama")
    (folder / "model.safetensors").unlink()
    torch.save({"model.embed_tokens.weight": _RunsCode()}, folder / "pytorch_model.bin")
    with pytest.raises(ModelError, match="a pickle weight file holds more than tensors, so reading it would run code "
                                         r"\(.*GLOBAL [^.]*\)\. Even with allow_pickle"):
        load_model(f"local:{folder}", dtype="float32", allow_pickle=True)
    assert not _RunsCode.ran


def test_a_model_named_in_trust_remote_code_runs_its_own_code_and_no_other(tmp_path, monkeypatch):
    """#43 item 7: the chapters' TRUST_REMOTE_CODE opt-in (rmlib.models.trust_remote_code) lets exactly the named
    models' own code run: here the folder's code runs (and stops the load, as it was written to), while a folder not
    named is refused as before."""
    from rmlib.models import trust_remote_code

    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path / "modules"))
    named = _local_model_with_own_code(tmp_path / "named", "rmlib-custom")
    other = _local_model_with_own_code(tmp_path / "other", "rmlib-custom")
    try:
        trust_remote_code([f"local:{named}"])
        with pytest.raises(SystemExit, match="this code must not run without an opt-in"):
            load_model(f"local:{named}", dtype="float32")
        with pytest.raises(RemoteCodeError, match="TRUST_REMOTE_CODE"):
            load_model(f"local:{other}", dtype="float32")
    finally:
        trust_remote_code([])
