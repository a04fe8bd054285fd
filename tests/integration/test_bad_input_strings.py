"""Issue #24 items 2, 6, 7, 8: a bare string where a list is expected, a damaged rmlib_run.yaml, text that is not
UTF-8, and pickles read although safetensors exist. tests/README.md has the catalogue."""
from __future__ import annotations

import pytest
import torch

from rmlib.cli import main
from rmlib.engine import answer_rewards, score_answers, token_reward_table, token_rewards_many
from rmlib.errors import InputError, RmlibError
from rmlib.models import ModelError, load_model
from rmlib.models.templates import TemplateError
from rmlib.registry import get_spec

PROMPT = "What, in one word, is the greatest thing ever?"
BAD_TEXT = "caf\udce9 \udcff?"  # what Python makes of the bytes b"caf\xe9 \xff?" in argv (surrogate escapes)


@pytest.fixture
def cli_env(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


# ---------------------------------------------------------------- item 2: a bare string is not a list

def test_a_bare_string_of_answers_or_prompts_is_refused(tiny_rms, tmp_path):
    lm = tiny_rms["llama"]
    with pytest.raises(InputError, match=r"answers must be a list, not a single string 'love'.*\['love'\]"):
        score_answers(lm, [PROMPT], "love", cache_root=tmp_path, progress=False)
    with pytest.raises(InputError, match="prompts must be a list, not a single string"):
        score_answers(lm, PROMPT, ["love"], cache_root=tmp_path, progress=False)
    with pytest.raises(InputError, match="answers must be a list"):
        answer_rewards(lm, [PROMPT], "love", progress=False)
    assert not list(tmp_path.rglob("*.parquet"))  # refused before anything was scored


@pytest.mark.parametrize("call, what", [
    (lambda: token_rewards_many("tiny-llama", [PROMPT], tokens=range(3)), "models"),
    (lambda: token_rewards_many(["tiny-llama"], PROMPT, tokens=range(3)), "prompts"),
    (lambda: token_reward_table("tiny-llama", ["greatest"], tokens=range(3)), "models"),
    (lambda: token_reward_table(["tiny-llama"], "greatest", tokens=range(3)), "prompt keys"),
])
def test_a_bare_string_of_models_or_prompts_is_refused_by_the_reward_entry_points(call, what):
    with pytest.raises(InputError, match=f"{what} must be a list, not a single string") as exc:
        call()
    assert isinstance(exc.value, RmlibError) and isinstance(exc.value, TypeError)


def test_a_bare_string_is_refused_by_the_analysis_entry_points():
    from rmbook.chapters.elo_misalignment.misalignment import misalignment
    from rmlib.data import prompt_table
    from rmlib.registry import model_info

    with pytest.raises(InputError, match="models must be a list"):
        model_info("tiny-llama")
    with pytest.raises(InputError, match=r"prompt keys must be a list.*\['greatest'\]"):
        prompt_table("greatest")
    import pandas as pd
    with pytest.raises(InputError, match="models must be a list"):
        misalignment(pd.DataFrame({"item": ["a"], "human": [1.0], "tiny-llama": [2.0]}), "human", "tiny-llama")


# ---------------------------------------------------------------- item 6: a damaged rmlib_run.yaml

def _export_like(folder, run_bytes: bytes, manifest: bool):
    """A folder shaped like an rmlib export: a tiny RM, its run file and (optionally) a manifest of hashes."""
    from rmlib.models.tiny import tiny_model
    from rmlib.storage.integrity import write_manifest

    model, tok = tiny_model("llama", head="rm")
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    (folder / "rmlib_run.yaml").write_bytes(b"base_model: tiny-llama\nrun_hash: abc\n")
    if manifest:
        write_manifest(folder)
    (folder / "rmlib_run.yaml").write_bytes(run_bytes)
    return folder


@pytest.mark.parametrize("run_bytes, manifest, why", [
    (b"base_model: tiny-llama\nrun_hash: \xff\xfe\n", False, "UnicodeDecodeError"),
    (b"base_model: tiny-llama\nrun_hash: [unclosed\n", False, "ParserError|ScannerError"),
    (b"a: b: c\n", False, "ScannerError"),
    (b"- just\n- a list\n", False, "not a mapping"),
    (b"base_model: tiny-llama\nrun_hash: abd\n", True, "sha256 differs"),  # still valid YAML: the manifest tells
])
def test_a_damaged_run_file_is_a_model_error_that_says_so(tmp_path, run_bytes, manifest, why, capsys):
    folder = _export_like(tmp_path / "rm", run_bytes, manifest)
    with pytest.raises(ModelError, match=rf"run file .*rmlib_run.yaml is damaged.*({why}).*retrain") as exc:
        get_spec(f"local:{folder}")
    assert isinstance(exc.value, RmlibError)
    code = main(["sweep", "--model", f"local:{folder}", "--prompt", PROMPT, "--tokens", "0:4"])
    err = capsys.readouterr().err
    assert code == 2 and "is damaged" in err and "Traceback" not in err


def test_every_rmlib_error_is_one_family():
    import importlib
    import pkgutil

    import rmbook
    import rmlib

    errors = set()
    for package in (rmlib, rmbook):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.startswith("rmlib.cli.__main__"):
                continue
            module = importlib.import_module(info.name)
            errors |= {v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Exception)
                       and not issubclass(v, Warning) and v.__module__.startswith(("rmlib.", "rmbook."))}
    names = {e.__name__ for e in errors}
    assert {"ModelError", "SweepError", "TemplateError", "TrainConfigError", "DataError", "ShardError",
            "ParameterError", "BookError", "GCGError"} <= names
    outside = sorted(e.__name__ for e in errors if not issubclass(e, RmlibError) and e.__name__ != "Missing")
    assert outside == []  # Missing (analysis.claims) is internal: a claim's evidence that is not there yet
    assert issubclass(ModelError, ValueError) and issubclass(TemplateError, ValueError)  # old bases kept


# ---------------------------------------------------------------- item 7: text that does not encode as UTF-8

def test_a_prompt_or_answer_that_is_not_utf8_is_a_template_error(tiny_rms, tmp_path):
    from rmlib.engine import sweep

    lm = tiny_rms["llama"]
    with pytest.raises(TemplateError, match="prompt .* cannot be encoded as UTF-8"):
        sweep(lm, BAD_TEXT, tokens=range(4), cache_root=tmp_path, progress=False)
    with pytest.raises(TemplateError, match="answer .* cannot be encoded as UTF-8"):
        score_answers(lm, [PROMPT], ["love", "caf\udce9"], cache_root=tmp_path, progress=False)
    with pytest.raises(TemplateError, match="prompt must be a string, not int"):
        score_answers(lm, [3], ["love"], cache_root=tmp_path, progress=False)


def test_cli_a_non_utf8_prompt_gets_a_message(cli_env, capsys):
    code = main(["sweep", "--model", "tiny-qwen2", "--prompt", BAD_TEXT, "--dtype", "float32", "--tokens", "0:4"])
    err = capsys.readouterr().err
    assert code == 2 and "UTF-8" in err and "Traceback" not in err


# ---------------------------------------------------------------- item 8: safetensors before pickles

def test_allow_pickle_still_prefers_safetensors(tmp_path):
    from rmlib.models.tiny import tiny_model

    model, tok = tiny_model("llama", head="rm")
    folder = tmp_path / "both"
    model.save_pretrained(folder)  # model.safetensors
    tok.save_pretrained(folder)
    other = {k: v.clone() for k, v in model.state_dict().items()}
    other["score.weight"] += 1.0  # the pickle holds different weights
    torch.save(other, folder / "pytorch_model.bin")
    assert (folder / "model.safetensors").exists()
    lm = load_model(f"local:{folder}", dtype="float32", allow_pickle=True)
    assert torch.equal(lm.model.score.weight, model.score.weight)
    assert not torch.equal(lm.model.score.weight, other["score.weight"])
