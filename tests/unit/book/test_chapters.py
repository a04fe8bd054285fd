"""rmlib.book.chapters: parameters of a run, results through one parameter, the run order."""
from __future__ import annotations

from pathlib import Path

import pytest

from rmlib import book


CHAPTER = "about"


def test_unknown_parameter_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("MODLES: [x]\n")
    with pytest.raises(book.BookError, match="MODLES"):
        book.parameters(CHAPTER, params_file=bad)
    with pytest.raises(book.BookError, match="no notebook template"):
        book.parameters("no_such_chapter")


def test_full_run_parameter_files_match_their_templates():
    names = book.chapters()
    assert CHAPTER in names
    for name in names:
        assert book.template(name).is_file()
        book.parameters(name)  # raises on keys that the parameters cell does not declare


def test_every_findings_chapter_writes_results_through_one_parameter():
    for name in book.chapters():
        text = book.template(name).read_text()
        assert "RESULTS_JSON" not in text and "RESULTS_PATH" not in text, name
        if name != "about":  # the about page glues its few numbers instead
            assert book.declares_results(name), f"{name} has no RESULTS_DIR parameter"
    params = book.with_results_dir("framing", {}, Path("/x/out"))
    assert params["RESULTS_DIR"] == str(Path("/x/out/results").resolve())
    assert book.with_results_dir("framing", {"RESULTS_DIR": "/y"}, Path("/x"))["RESULTS_DIR"] == "/y"
    assert book.with_results_dir("about", {}, Path("/x")) == {}
    # where results go is not an input: it does not change the stamp
    assert book.content_hash("framing", {"RESULTS_DIR": "/a"}) == book.content_hash("framing", {"RESULTS_DIR": "/b"})
