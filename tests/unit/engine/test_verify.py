"""rmlib.engine.verify's results check (#39 item 3): `rmlib verify` covers the chapters' results folder, reporting a
results JSON changed after its chapter wrote it, with the chapter to rerun, and touching nothing."""
from __future__ import annotations

from rmlib import storage
from rmlib.cli.main import main
from rmlib.engine.verify import CORRUPT, INTACT, verify_results
from rmlib.storage import ChapterResults


class VerifyDemo(ChapterResults):
    CHAPTERS = ("verifydemo",)
    a: float


def test_a_changed_results_file_is_reported_and_left_alone(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "results"
    path = storage.write_results(VerifyDemo(a=0.25), folder)
    assert [(f.kind, f.status) for f in verify_results(folder)] == [("results", INTACT)]
    changed = path.read_text().replace('"a": 0.25', '"a": 0.35')
    path.write_text(changed)
    (finding,) = verify_results(folder)
    assert finding.status == CORRUPT and "rerun chapter 'verifydemo'" in finding.detail
    assert path.read_text() == changed  # nothing repaired behind the reader's back: the chapter rewrites it
    assert verify_results(tmp_path / "absent") == []
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))  # an empty cache: only the results are checked
    assert main(["verify", "--results", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "corrupt" in out and "verifydemo.json" in out and "1 corrupt" in out


def _tree(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_verify_never_follows_a_symlink_out_of_the_cache(tmp_path):
    """#39 item 5: with sweeps/abc linked to a folder outside the cache, verify deleted a temporary file there and
    renamed its COMPLETE; the same under rms/<run>/trainer. Now the link is reported as refused and nothing outside
    is read, moved or deleted."""
    from rmlib.engine.verify import REFUSED, verify_cache

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / ".meta.json.999999.0123abcd.tmp").write_text("a temporary name of a dead pid")
    (outside / "COMPLETE").write_text("not a real marker")
    (outside / "meta.json").write_text("{}")
    (outside / "checkpoint-3").mkdir()
    (outside / "checkpoint-3" / "trainer_state.json").write_text("{}")
    before = _tree(outside)
    cache = tmp_path / "cache"
    (cache / "sweeps").mkdir(parents=True)
    (cache / "sweeps" / "abc").symlink_to(outside, target_is_directory=True)
    (cache / "rms" / "run-1").mkdir(parents=True)
    (cache / "rms" / "run-1" / "trainer").symlink_to(outside, target_is_directory=True)
    (cache / "rms" / "run-2").symlink_to(outside, target_is_directory=True)
    findings = verify_cache(cache, full=True, repair=True)
    assert _tree(outside) == before
    refused = sorted(str(f.path.relative_to(cache)) for f in findings if f.status == REFUSED)
    assert refused == ["rms/run-1/trainer", "rms/run-2", "sweeps/abc"]
    assert all(f.kind == "link" and str(outside) in f.detail for f in findings if f.status == REFUSED)
    assert not [f for f in findings if f.status != REFUSED and outside in f.path.resolve().parents]


def test_a_temporary_file_naming_an_impossible_pid_is_cleaned_not_an_overflow(tmp_path):
    """#62: `.x.99999999999.deadbeef.tmp` stopped `rmlib verify` with an OverflowError from os.kill."""
    from rmlib.engine.verify import CLEANED, verify_cache

    cache = tmp_path / "cache"
    (cache / "sweeps").mkdir(parents=True)
    temp = cache / "sweeps" / ".x.99999999999.deadbeef.tmp"
    temp.write_text("left by a run on another machine")
    (finding,) = verify_cache(cache, repair=True)
    assert (finding.kind, finding.status, finding.path) == ("temp", CLEANED, temp) and not temp.exists()
