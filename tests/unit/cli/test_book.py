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
