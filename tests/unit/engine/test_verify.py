"""rmlib.engine.verify's results check (#39 item 3): `rmlib verify` covers the folders of stored records (the book's
chapters' results), reporting a file changed after it was written, with how to make it again in the words of whoever
named the folder (the book: the chapter to rerun), and touching nothing."""
from __future__ import annotations

from rmlib.cli.main import main
from rmlib.engine.verify import CORRUPT, INTACT, verify_results
from rmlib.storage import StoredRecord, write_record
from rmbook.results import ChapterResults, remake_in_folder, write_results


class VerifyDemo(ChapterResults):
    CHAPTERS = ("verifydemo",)
    a: float


class Plain(StoredRecord):
    a: float


def test_a_changed_results_file_is_reported_and_left_alone(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "results"
    path = write_results(VerifyDemo(a=0.25), folder)
    assert [(f.kind, f.status) for f in verify_results(folder)] == [("results", INTACT)]
    changed = path.read_text().replace('"a": 0.25', '"a": 0.35')
    path.write_text(changed)
    (finding,) = verify_results(folder, remake_in_folder)
    assert finding.status == CORRUPT and "rerun chapter 'verifydemo'" in finding.detail
    assert path.read_text() == changed  # nothing repaired behind the reader's back: the chapter rewrites it
    assert verify_results(tmp_path / "absent") == []
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))  # an empty cache: only the results are checked
    assert main(["verify", "--results", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "corrupt" in out and "verifydemo.json" in out and "1 corrupt" in out


def test_rmlib_alone_reports_a_changed_record_without_the_books_words(tmp_path):
    """#64 item 4: rmlib knows no chapter. A changed record in a folder that nobody claims is reported in rmlib's own
    words (its writer, make it again), never with a chapter to rerun; a stray file is said to be no record."""
    folder = tmp_path / "records"
    path = write_record(Plain(a=0.25), folder / "plain.json")
    path.write_text(path.read_text().replace('"a": 0.25', '"a": 0.35'))
    (folder / "notes.json").write_text('{"todo": 1}')
    found = {f.path.name: f for f in verify_results(folder)}
    assert found["plain.json"].status == CORRUPT and "changed after its writer wrote it" in found["plain.json"].detail
    assert "make it again with what wrote it" in found["plain.json"].detail
    assert "not a stored record" in found["notes.json"].detail
    assert not any("chapter" in f.detail or "book run" in f.detail for f in found.values())


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


def test_a_non_finite_number_in_a_results_file_is_reported_with_the_file_and_the_chapter(tmp_path, monkeypatch,
                                                                                         capsys):
    """#62: a number edited to NaN (or 1e999) stopped `rmlib verify --results` with "Out of range float values are
    not JSON compliant", naming no file."""
    folder = tmp_path / "results"
    path = write_results(VerifyDemo(a=0.25), folder)
    path.write_text(path.read_text().replace('"a": 0.25', '"a": NaN'))
    (finding,) = verify_results(folder, remake_in_folder)
    assert finding.status == CORRUPT and "edited or damaged" in finding.detail
    assert "rerun chapter 'verifydemo'" in finding.detail
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["verify", "--results", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "verifydemo.json" in out and "not finite" in out


def test_a_stray_json_in_a_results_folder_is_not_taken_for_a_chapter(tmp_path):
    """#62: a notes.json beside the chapters' results got "rerun chapter 'notes'", a chapter that does not exist. A
    file is a chapter's when that chapter ran there (its executed notebook beside the results folder) or it carries
    a chapter's schema tag; another is said to be no chapter's results file."""
    executed = tmp_path / "executed"
    folder = executed / "results"
    write_results(VerifyDemo(a=0.25), folder)
    (folder / "notes.json").write_text('{"todo": "read chapter 3"}')
    (folder / "distributions.json").write_text('{"trunc')  # a real chapter's file, damaged
    (executed / "distributions.ipynb").write_text("{}")
    found = {f.path.name: f for f in verify_results(folder, remake_in_folder)}
    assert found["verifydemo.json"].status == INTACT
    notes = found["notes.json"].detail
    assert "not a stored record" in notes and "rerun" not in notes and "book run" not in notes
    assert "rerun chapter 'distributions'" in found["distributions.json"].detail


def test_verify_results_of_a_folder_that_does_not_exist_is_a_usage_error(tmp_path, monkeypatch, capsys):
    """#62: `rmlib verify --results /nonexistent` checked nothing and exited 0."""
    import pytest

    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(SystemExit) as e:
        main(["verify", "--results", str(tmp_path / "nonexistent")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--results" in err and str(tmp_path / "nonexistent") in err and "no such folder" in err


def test_the_default_verify_checks_the_reruns_results_too(tmp_path, monkeypatch, capsys):
    """#62: the default `rmlib verify` checked book/_executed/results only, and a changed number in a rerun's
    results (book/_executed/reruns/<name>-<key>/results) went unreported. The folders come from the book's
    ``rmlib.results_folders`` entry point (rmbook.paths): rmlib knows none of its own (#64 item 4)."""
    from rmbook import paths

    executed = tmp_path / "book" / "_executed"
    monkeypatch.setattr(paths, "BOOK_EXECUTED", executed)
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    write_results(VerifyDemo(a=0.25), executed / "results")
    rerun = write_results(VerifyDemo(a=0.25), executed / "reruns" / "verifydemo-0123abcd" / "results")
    rerun.write_text(rerun.read_text().replace('"a": 0.25', '"a": 0.35'))
    assert main(["verify"]) == 1
    out = capsys.readouterr().out
    assert "reruns/verifydemo-0123abcd/results/verifydemo.json" in out and "1 intact" in out and "1 corrupt" in out
    assert "rerun chapter 'verifydemo'" in out  # the book's words, from its entry point
    assert main(["verify", "--results", str(rerun.parent)]) == 1  # one of the book's folders, named: its words still
    assert "rerun chapter 'verifydemo'" in capsys.readouterr().out


def test_verify_never_reports_an_old_dequantized_copy_out_of_the_cache_as_removed(tmp_path):
    """#62: a `dequantized/<name>.corrupt-*` symlink to a folder outside the cache was reported "cleaned ...
    (removed)", though nothing was removed (rmtree refuses a link). It is a link out of the cache: refused."""
    from rmlib.engine.verify import CLEANED, REFUSED, verify_cache

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "model.safetensors").write_text("someone else's")
    cache = tmp_path / "cache"
    (cache / "dequantized").mkdir(parents=True)
    link = cache / "dequantized" / "qwen.corrupt-20250101-000000-abcd"
    link.symlink_to(outside, target_is_directory=True)
    findings = verify_cache(cache, repair=True)
    assert [(f.path, f.status) for f in findings] == [(link, REFUSED)]
    assert not [f for f in findings if f.status == CLEANED] and (outside / "model.safetensors").exists()


def test_without_a_plug_in_naming_results_folders_verify_checks_the_cache_alone(tmp_path, monkeypatch, capsys):
    """rmlib installed without the book (a wheel): no entry point names a results folder, and the default `rmlib
    verify` checks the cache only, where it used to look for a checkout's book/_executed beside site-packages."""
    from rmlib.cli import commands

    monkeypatch.setattr(commands.metadata, "entry_points", lambda group: [])
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    assert commands.default_results_folders() == {}
    assert main(["verify"]) == 0
    assert "results" not in capsys.readouterr().out.lower()
