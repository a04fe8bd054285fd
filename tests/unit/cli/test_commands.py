"""`rmlib models` lists the RMs trained in this cache, `rmlib verify --dry-run` says it changed nothing, and `make
help` lists the variables the README uses (#28 items 11-12). No model is loaded."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from rmlib.cli import main

ROOT = Path(__file__).parents[3]


def _trained(cache: Path, name: str, run: dict, steps=(), accuracy: float | None = None) -> Path:
    """A trained RM's folder as rmlib.train.export leaves it (config.json, rmlib_run.yaml), with step-<n> exports
    and, optionally, the held-out metrics rmbook.chapters.finetuning.analysis.evaluate_run caches in the last one."""
    folder = cache / "rms" / name
    for f in (folder, *(folder / f"step-{s}" for s in steps)):
        f.mkdir(parents=True)
        (f / "config.json").write_text("{}")
        (f / "rmlib_run.yaml").write_text(yaml.safe_dump(run))
    if accuracy is not None:
        pd.DataFrame([{"run": name, "step": steps[-1], "accuracy": accuracy, "n_test": 32}]).to_parquet(
            folder / f"step-{steps[-1]}" / "eval-0123456789abcdef-metrics.parquet")
    return folder


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_models_lists_the_trained_rms_in_the_cache_in_their_own_section(cache, capsys):
    run = {"base_model": "tiny-llama", "sources": ["hh_rlhf_harmless"], "n_pairs": 64, "steps": 8}
    _trained(cache, "ft-evaluated", run, steps=(4, 8), accuracy=0.78125)
    _trained(cache, "ft-plain", {**run, "sources": ["hh_rlhf_helpful", "shp"], "n_pairs": 128})
    _trained(cache, "ft-dpo", {**run, "objective": "dpo"})
    (cache / "rms" / "half-written").mkdir()  # no config.json: not a model
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "score reader" in out  # the registry's table is unchanged
    section = out.split("Trained RMs in this cache")[1]
    lines = {line.split()[0]: line for line in section.splitlines() if line.startswith("local:")}
    assert set(lines) == {"local:ft-evaluated", "local:ft-plain", "local:ft-dpo"}
    assert "tiny-llama" in lines["local:ft-evaluated"] and "hh_rlhf_harmless, 64 pairs" in lines["local:ft-evaluated"]
    assert "0.781 (step 8, 32 test pairs)" in lines["local:ft-evaluated"]
    assert "hh_rlhf_helpful+shp, 128 pairs" in lines["local:ft-plain"] and "not recorded" in lines["local:ft-plain"]
    assert lines["local:ft-dpo"].split()[1] == "lm" and "DPO" in lines["local:ft-dpo"]


def test_models_says_when_no_rm_was_trained_yet(cache, capsys):
    assert main(["models"]) == 0
    assert "Trained RMs in this cache (local:): none yet" in capsys.readouterr().out


def test_models_says_which_native_head_layouts_are_inferred(cache, capsys):
    """#40 item 4: QRM-Gemma-2-27B's head layout was inferred, the other native heads' read from published code."""
    assert main(["models"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert "native head, layout INFERRED" in lines["nicolinho/QRM-Gemma-2-27B"]
    for read in ("RLHFlow/ArmoRM-Llama3-8B-v0.1", "nicolinho/QRM-Llama3.1-8B", "LxzGordon/URM-LLaMa-3.1-8B"):
        assert "native head, layout read from its code" in lines[read]
    assert "native head" not in lines["Ray2333/GRM-gemma2-2B-rewardmodel-ft"]


def test_verify_dry_run_says_it_changed_nothing(cache, capsys):
    orphan = cache / "sweeps" / "abc" / ".shard-00000-0123456789abcdef.parquet.999999999.0badf00d.tmp"
    orphan.parent.mkdir(parents=True)
    orphan.write_bytes(b"partial")
    main(["verify", "--dry-run"])  # exit status 1: the killed run's file is reported, not removed
    out = capsys.readouterr().out
    assert "dry run: nothing was changed" in out and orphan.exists()
    main(["verify"])
    out = capsys.readouterr().out
    assert "cleaned" in out and "nothing was changed" not in out and not orphan.exists()


def test_make_help_lists_the_variables_the_readme_uses():
    text = subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    readme = (ROOT / "README.md").read_text()
    for var in ("ARGS=", "PARAMS=", "FORCE=", "MODELS="):
        assert var in text, var
    assert all(var in text for var in ("ARGS=", "MODELS=") if var in readme)
