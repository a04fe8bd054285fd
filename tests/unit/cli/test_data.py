"""`rmlib data fetch` and `rmlib data list`."""
from __future__ import annotations

from rmlib.cli import data as cli
from rmlib.data.fetch import fetch, verify
from rmlib.data.manifest import all_files
import rmlib.data


def test_cli_fetch_and_list(tmp_path, mirror, capsys):
    import argparse

    parser = argparse.ArgumentParser(prog="rmlib")
    cli.add_subparser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["data", "fetch", "--dest", str(tmp_path), "--mirror", str(mirror)])
    assert args.func(args) == 0
    assert set(verify(tmp_path).values()) == {"ok"}
    assert cli.main(["data", "list", "--dest", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "elo_everything" in out and "missing" not in out and out.count("ok ") == len(all_files())
    assert cli.main(["data", "fetch", "--dest", str(tmp_path / "x"), "--mirror", str(tmp_path / "nope")]) == 1
    assert "not a directory" in capsys.readouterr().err
