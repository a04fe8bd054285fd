"""`rmlib book`: the book's commands are part of the one `rmlib` CLI (what the Makefile calls)."""
from __future__ import annotations

import re

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


@pytest.mark.parametrize("args, message", [
    (["-p", "NOSUCH", "1"], r"parameters \['NOSUCH'\] are not in the parameters cell"),
    (["--params", "BINARY"], "is not a text file"),
    (["--params", "LIST"], "must hold a mapping of NAME: value, got list"),
    (["-p", "TRUST_REMOTE_CODE", "x/y"], "TRUST_REMOTE_CODE='x/y' should be a list"),
    (["-p", "MODELS", '["tiny-llama"]', "-p", "TRUST_REMOTE_CODE", '["x/y"]'],
     r"TRUST_REMOTE_CODE names 'x/y', which is not in MODELS \['tiny-llama'\]"),
    (["-p", "MODE", "nosuch"], r"MODE='nosuch': choose one of \['published', 'compute'\]"),
    (["-p", "TOKENS", "300"], "TOKENS=300 applies only when MODE is 'compute'"),
])
def test_an_estimate_refuses_the_parameters_a_run_refuses(args, message, tmp_path, capsys):
    """#62: `rmlib book run CHAPTER --estimate` said "1 of 1 chapter to run" and exited 0 with parameters that the
    run itself refuses (the runner before it starts, or the chapter's check cell)."""
    (tmp_path / "binary.yaml").write_bytes(b"\x00\xff\xfe\x81 not text")
    (tmp_path / "list.yaml").write_text("- MODE\n- compute\n")
    args = [str(tmp_path / f"{a.lower()}.yaml") if a in ("BINARY", "LIST") else a for a in args]
    assert main(["book", "run", "framing", "--estimate", *args]) == 2
    captured = capsys.readouterr()
    assert re.search(message, captured.err) and "to run" not in captured.out


def test_an_estimate_of_an_up_to_date_rerun_says_it_is_up_to_date(monkeypatch, capsys):
    """#62: the estimate of a rerun looked at the book's own page, not the rerun's folder, and said "1 of 1 chapter
    to run, never timed" for a rerun that was up to date."""
    from rmbook.book import reruns, runner

    folder = reruns.rerun_dir("framing", overrides={"N_INFLUENTIAL": 5})
    monkeypatch.setattr(runner, "stale_reason", lambda ch, params, out: None if out == folder else "no stamp")
    assert main(["book", "run", "framing", "--estimate", "-p", "N_INFLUENTIAL", "5"]) == 0
    out = capsys.readouterr().out
    assert "1 chapter up to date: 0 to run" in out and "1 of 1" not in out
