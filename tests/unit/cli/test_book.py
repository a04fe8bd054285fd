"""`rmlib book`: the book's commands are part of the one `rmlib` CLI (what the Makefile calls)."""
from __future__ import annotations

import pytest

from rmbook.book import BookError
from rmlib.cli import main
from rmbook.cli.book import parse_overrides


def test_book_commands_are_rmlib_subcommands(capsys):
    with pytest.raises(SystemExit):
        main(["book", "--help"])
    out = capsys.readouterr().out
    assert "vendor" in out and "run" in out and "html" in out


def test_an_unknown_chapter_is_a_message_and_exit_code_not_a_traceback(capsys):
    assert main(["book", "run", "no_such_chapter", "--tiny"]) == 2
    err = capsys.readouterr().err
    assert "no notebook template for chapter 'no_such_chapter'" in err and "Traceback" not in err


def test_parameter_values_are_yaml():
    assert parse_overrides([["MODELS", '["a", "b"]'], ["TOP_K", "20"]]) == {"MODELS": ["a", "b"], "TOP_K": 20}
    with pytest.raises(BookError, match="not a YAML value"):
        parse_overrides([["MODELS", "[a, b"]])


def test_the_makefile_calls_the_one_cli():
    from rmbook.book import ROOT

    mk = (ROOT / "mk" / "book.mk").read_text()
    assert "BOOK := $(BIN)/rmlib book" in mk and "python -m rmbook.book" not in mk


def test_a_rerun_cannot_write_the_books_own_results(capsys):
    """#62 wrong number 2: `rmlib book run distributions --tiny -p PUBLISHED_MODELS '[one RM]' -p RESULTS_DIR
    $PWD/book/_executed/results` wrote the book's distributions.json for one model, with a valid hash, and said "the
    book's own page is unchanged"; the claims page then judged a one-model run. RESULTS_DIR is the runner's alone."""
    from rmbook.book import results_dir

    page = results_dir() / "distributions.json"
    before = page.read_bytes() if page.exists() else None
    code = main(["book", "run", "distributions", "--tiny", "-p", "PUBLISHED_MODELS",
                 '["RLHFlow/ArmoRM-Llama3-8B-v0.1"]', "-p", "RESULTS_DIR", str(results_dir())])
    err = capsys.readouterr().err
    assert code == 2 and "RESULTS_DIR=" in err and "is not a parameter to set" in err, err
    assert (page.read_bytes() if page.exists() else None) == before  # refused before anything ran


def test_make_chapter_hands_models_with_an_apostrophe_to_the_cli_unchanged(tmp_path):
    """#62: `make chapter MODELS='["local:/home/o'brien/rm"]'` was cut into the shell's single quotes ("unexpected
    EOF while looking for matching"); the values now reach `rmlib book run` as they were typed (a harmless
    stand-in for `rmlib book` records its arguments)."""
    import subprocess

    from rmbook.book import ROOT

    fake = tmp_path / "book"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do printf "<%s>\\n" "$a"; done\n')
    fake.chmod(0o755)
    models, trust = """["local:/home/o'brien/rm", "a\\"b `x`"]""", """["local:/home/o'brien/rm"]"""
    params = str(tmp_path / "it's \"mine\" `x`.yaml")
    proc = subprocess.run(["make", "-s", "-o", ".venv/.installed", "-o", "data", "chapter", "NB=about",
                           f"MODELS={models}", f"TRUST_REMOTE_CODE={trust}", f"PARAMS={params}", f"BOOK={fake}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert (f"<run>\n<about>\n<--params>\n<{params}>\n<-p>\n<MODELS>\n<{models}>\n<-p>\n<TRUST_REMOTE_CODE>\n"
            f"<{trust}>\n<html>\n") in proc.stdout
