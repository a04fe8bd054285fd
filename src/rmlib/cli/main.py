"""The `rmlib` command: the parser of every subcommand, and the one place that turns errors into messages and exit
codes."""
from __future__ import annotations

import argparse
import os
import sys

from rmlib.cli.book import add_subparser as add_book_commands
from rmlib.cli.card import add_card_command
from rmlib.cli.check import add_subparser as add_check_command
from rmlib.cli.commands import add_model_commands
from rmlib.cli.data import add_subparser as add_data_commands
from rmlib.cli.gcg import add_gcg_command
from rmlib.cli.plan import add_subparser as add_plan_commands
from rmlib.errors import RmlibError

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rmlib", description="reward-model interpretability: sweeps, the model registry, audits, cache verification, data and the book")
    sub = parser.add_subparsers(dest="command", required=True)
    add_model_commands(sub)
    add_gcg_command(sub)
    add_data_commands(sub)
    add_plan_commands(sub)
    add_check_command(sub)
    add_card_command(sub)
    add_book_commands(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # The reader (e.g. `| head`) stopped listening; everything was already written. Exit as Unix tools do.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        except (OSError, ValueError):
            pass
        return 141
    except KeyboardInterrupt:
        print("rmlib: interrupted; finished shards are kept and the same command resumes", file=sys.stderr)
        return 130
    except (RmlibError, ValueError, RuntimeError, OSError) as exc:
        # Every rmlib error (one family, RmlibError), bad input, a model that cannot be loaded here (offline, no GPU),
        # a full disk: a message, not a traceback.
        print(f"rmlib: error: {exc}", file=sys.stderr)
        return 2
