"""What training leaves on disk can be trusted and shared (issue 24, items 1, 9, 10, 14): resume checkpoints carry
hashes checked before a resume uses them, quick `rmlib verify` never calls a sampled check "intact", weights get the
umask's mode like every other cache file, and a full disk leaves no partial record."""
from __future__ import annotations

import errno
import os
import shutil
import tempfile

import numpy as np
import pandas as pd
import pytest
import torch

from rmlib.models import CacheWarning
from rmlib.trained import local_rm_dir
from rmlib.storage.integrity import MANIFEST
from rmlib.train import train
from rmlib.train.resume import resume_checkpoint
from tests.integration.train_support import Crash, marker_config, module_cache  # noqa: F401 (fixture)

# `rmlib verify` checks the book's results folder too; these tests check the cache alone, whatever book is built here
NO_RESULTS = ["--results", tempfile.mkdtemp(prefix="rmlib-no-results-")]  # an empty folder (#62: a missing one is refused)


SHORT = dict(n_pairs=32, n_test=8, steps=10, save_every=4, batch_size=4)


@pytest.fixture(autouse=True, scope="module")
def cache(module_cache):
    return module_cache


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.fixture(scope="module")
def killed_run(cache):
    """One tiny run killed at step 6: its trainer/checkpoint-4 is the resume checkpoint (trained once per module)."""
    old = os.umask(0o022)
    try:
        with pytest.raises(KeyboardInterrupt):
            train(marker_config("killed", **SHORT), progress=False, callbacks=[Crash(6)])
    finally:
        os.umask(old)
    ckpt = local_rm_dir("killed") / "trainer" / "checkpoint-4"
    assert (ckpt / "trainer_state.json").exists() and (ckpt / "optimizer.pt").exists()
    return ckpt


def _flip(path, offset, bit):
    data = bytearray(path.read_bytes())
    data[offset] ^= 1 << bit
    path.write_bytes(bytes(data))


def test_resume_checkpoints_record_hashes_with_the_umask_mode(killed_run):
    files = sorted(p.name for p in killed_run.iterdir())
    assert MANIFEST in files and "model.safetensors" in files
    modes = {p.name: oct(p.stat().st_mode & 0o777) for p in killed_run.iterdir()}
    assert set(modes.values()) == {"0o644"}, modes  # safetensors and torch.save wrote 0600


def test_ten_seeded_flips_in_a_resume_checkpoint_are_each_detected_before_use(killed_run, tmp_path):
    """10 bytes flipped at seeded random offsets across the checkpoint's files (a different file each flip, while
    files last):
    each damaged copy (checkpoint-8) is set aside with a warning naming it, `rmlib verify` reports it, and the resume
    falls back to the intact checkpoint-4 beside it."""
    from rmlib.engine import verify_cache
    rng = np.random.default_rng(24)
    files = sorted(p.name for p in killed_run.iterdir() if p.name != MANIFEST)
    targets = list(rng.permutation(files)) + list(rng.choice(files, size=max(0, 10 - len(files))))
    for i, name in enumerate(targets[:10]):
        trainer_dir = tmp_path / f"flip{i}" / "rms" / "run" / "trainer"
        shutil.copytree(killed_run, trainer_dir / "checkpoint-4")
        shutil.copytree(killed_run, trainer_dir / "checkpoint-8")
        victim = trainer_dir / "checkpoint-8" / name
        _flip(victim, int(rng.integers(victim.stat().st_size)), int(rng.integers(8)))
        found = {f.path.name: f.status for f in verify_cache(tmp_path / f"flip{i}", full=True, repair=False)
                 if f.kind == "resume"}
        assert found == {"checkpoint-4": "intact", "checkpoint-8": "corrupt"}, (name, found)
        with pytest.warns(CacheWarning, match=r"checkpoint-8 failed its check .*" + name):
            chosen = resume_checkpoint(trainer_dir)
        assert chosen == trainer_dir / "checkpoint-4", name
        assert sorted(p.name for p in trainer_dir.iterdir()) == ["checkpoint-4"]
        assert len(list(trainer_dir.parent.glob("checkpoint-8.corrupt-*"))) == 1  # set aside, not deleted
    assert len(set(targets[:10])) == min(10, len(files))


def test_a_resume_checkpoint_without_hashes_is_not_used(killed_run, tmp_path):
    """A kill after the trainer saved but before the hashes were written (or an older rmlib) leaves no manifest."""
    trainer_dir = tmp_path / "run" / "trainer"
    shutil.copytree(killed_run, trainer_dir / "checkpoint-4")
    (trainer_dir / "checkpoint-4" / MANIFEST).unlink()
    with pytest.warns(CacheWarning, match="checkpoint-4 failed its check .*no rmlib_manifest.json"):
        assert resume_checkpoint(trainer_dir) is None


def test_a_damaged_resume_checkpoint_makes_train_start_again(killed_run):
    """Before: the flipped checkpoint was resumed from (resumed_from=4), giving other final weights unannounced."""
    _flip(killed_run / "model.safetensors", killed_run.joinpath("model.safetensors").stat().st_size - 5, 0)
    with pytest.warns(CacheWarning, match="checkpoint-4 failed its check"):
        resumed = train(marker_config("killed", **SHORT), progress=False)
    assert resumed.resumed_from is None and resumed.log["step"].tolist() == list(range(1, 11))
    assert (resumed.run_dir / "consumed_from_0.csv").exists() and resumed.checkpoints == [4, 8, 10]
    assert len(list(resumed.run_dir.glob("checkpoint-4.corrupt-*"))) == 1


def _export_tiny(name, tuning="full"):
    from rmlib.models.tiny import tiny_model
    from rmlib.train.export import export
    model, tok = tiny_model("llama", head="rm")
    if tuning == "last_n":
        model.requires_grad_(False)
        model.score.requires_grad_(True)
    out = local_rm_dir(name)
    out.parent.mkdir(parents=True, exist_ok=True)
    export(model, tok, out, {"base_model": "tiny-llama", "tuning": tuning, "run_hash": "abc", "step": 4}, "float32")
    return out


@pytest.mark.parametrize("tuning", ["full", "last_n"])
def test_exported_weights_get_the_umask_mode(umask_022, tuning):
    """Item 10: trained weights were written 0600 (safetensors), every other cache file 0644."""
    out = _export_tiny(f"mode-{tuning}", tuning)
    modes = {p.name: oct(p.stat().st_mode & 0o777) for p in out.iterdir() if p.is_file()}
    assert any(n.endswith(".safetensors") for n in modes) and set(modes.values()) == {"0o644"}, modes


def test_dequantized_weights_get_the_umask_mode(umask_022, tmp_path, monkeypatch):
    """Item 10: the de-quantised copy's safetensors were 0600. The GGUF read is replaced by a tiny LM."""
    import transformers
    from rmlib.models import embedded
    from rmlib.models.tiny import tiny_model
    from rmlib.registry import registry
    spec = next(s for s in registry().values() if s.source == "embedded")
    monkeypatch.setattr(embedded, "gguf_location", lambda spec: (tmp_path, "x.gguf"))
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained",
                        lambda *a, **k: tiny_model("llama", head="lm")[0])
    out = tmp_path / "copy"
    embedded.build_dequantized(spec, torch.float32, out, embedded.EMBEDDED[spec.gguf])
    modes = {p.name: oct(p.stat().st_mode & 0o777) for p in out.iterdir()}
    assert "model.safetensors" in modes and set(modes.values()) == {"0o644"}, modes


def test_quick_verify_says_sampled_not_intact(capsys):
    """Item 9: quick verify samples blocks of model files, so it missed flips between them and called them
    "intact". It now says "sampled: no damage found" and how to hash every byte; --full finds the flip."""
    from rmlib.cli import main
    from rmlib.engine import verify_cache
    from rmlib.storage.integrity import write_manifest
    out = local_rm_dir("sampled")  # an export's layout, with weights large enough to have unsampled stretches
    out.mkdir(parents=True)
    (out / "rmlib_run.yaml").write_text("base_model: tiny-llama\nstep: 4\n")
    (out / "config.json").write_text("{}")
    weights = out / "model.safetensors"
    weights.write_bytes(np.random.default_rng(9).bytes(4 << 20))
    write_manifest(out)
    size = weights.stat().st_size
    block, gap = 1 << 16, (size - 2 * (1 << 16)) // 15  # sampled: 64 KiB blocks every `gap` bytes after the first
    assert gap > 2 * block, size  # large enough for unsampled stretches between the sampled blocks
    _flip(weights, block + 2 * gap + (gap + block) // 2, 3)  # between the 3rd and 4th sampled blocks
    quick = {f.path.name: f.status for f in verify_cache() if f.kind == "checkpoint"}
    assert quick["sampled"] == "sampled: no damage found"
    assert main(["verify", "--dry-run", *NO_RESULTS]) == 0
    text = capsys.readouterr().out
    assert "sampled: no damage found" in text and "rmlib verify --full" in text
    lines = [line.strip() for line in text.splitlines() if "rms/sampled " in line]
    assert lines and all(line.startswith("sampled: no damage found") for line in lines), lines
    full = {f.path.name: f.status for f in verify_cache(full=True, repair=False) if f.kind == "checkpoint"}
    assert full["sampled"] == "corrupt"


def test_a_full_disk_leaves_no_partial_test_pairs(monkeypatch):
    """Item 14: on a full disk, to_parquet left a 0-byte (or partial) test_pairs.parquet and a raw OSError."""
    def full_disk(self, path, *a, **k):
        with open(path, "wb") as f:
            f.write(b"PAR1")  # what was written before the disk filled
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full_disk)
    with pytest.raises(OSError, match=r"cannot write .*test_pairs\.parquet: No space left on device \(is the disk "
                                      r"full\?") as info:
        train(marker_config("full-disk", **SHORT), progress=False)
    assert info.value.errno == errno.ENOSPC
    from rmlib.errors import RmlibError
    assert isinstance(info.value, RmlibError)  # the CLI's one except clause catches it
    run_dir = local_rm_dir("full-disk")
    assert not (run_dir / "test_pairs.parquet").exists()
    assert not [p.name for p in run_dir.iterdir() if "test_pairs" in p.name]  # no temporary file either


def test_a_full_disk_while_exporting_is_the_training_write_error(monkeypatch):
    """#39 item 6: safetensors reports a failed write in its own error type (SafetensorError "I/O error: ... (os error
    28)"), which reached the caller raw. The file-size limit makes the OS refuse the weights' write for real (EFBIG,
    as a full disk gives ENOSPC), inside safetensors' own writer."""
    import resource
    import signal

    from rmlib.train import export as export_mod
    from rmlib.train.trainer import TrainWriteError

    real_write = export_mod._write

    def small_disk(*args, **kwargs):
        before = resource.getrlimit(resource.RLIMIT_FSIZE)
        old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an error from write(), not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, before[1]))
        try:
            return real_write(*args, **kwargs)
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, before)
            signal.signal(signal.SIGXFSZ, old_handler)

    monkeypatch.setattr(export_mod, "_write", small_disk)
    with pytest.raises(TrainWriteError, match=r"cannot write .*step-4: File too large \(is the disk full\?") as info:
        train(marker_config("full-disk-export", **SHORT), progress=False)
    assert info.value.errno == errno.EFBIG
    assert type(info.value.__cause__).__name__ == "SafetensorError"  # the case that was raw
    run_dir = local_rm_dir("full-disk-export")
    assert not (run_dir / "step-4").exists()
    assert not [p.name for p in run_dir.iterdir() if p.name.startswith(".")]  # no temporary export folder left
