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
