"""The `rmlib` command: the parser of every subcommand, and the one place that turns errors into messages and exit
codes.

The library's own subcommands are imported here. Others come as plug-ins: each entry point of the group
:data:`PLUGIN_GROUP` (the book declares ``book`` and ``card`` in ``pyproject.toml``) names a function that adds its
subcommand to the parser, so rmlib imports nothing of the book. A plug-in that cannot be imported (the ``book``
extra not installed) still gets its subcommand, which says what to install instead of running."""
from __future__ import annotations

import argparse
import os
import sys
from importlib import metadata

from rmlib.cli.check import add_subparser as add_check_command
from rmlib.cli.commands import add_model_commands
from rmlib.cli.data import add_subparser as add_data_commands
from rmlib.cli.gcg import add_gcg_command
from rmlib.cli.plan import add_subparser as add_plan_commands
from rmlib.errors import RmlibError

__all__ = ["main", "build_parser", "PLUGIN_GROUP"]

PLUGIN_GROUP = "rmlib.commands"  # entry points: name -> function(subparsers) that adds the subcommand `name`


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rmlib", description="reward-model interpretability: sweeps, the model registry, audits, cache verification, data and the book")
    sub = parser.add_subparsers(dest="command", required=True)
    add_model_commands(sub)
    add_gcg_command(sub)
    add_data_commands(sub)
    add_plan_commands(sub)
    add_check_command(sub)
    for entry in sorted(metadata.entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        _add_plugin(sub, entry)
    return parser


def _add_plugin(sub, entry) -> None:
    """Add the subcommand of one entry point; one whose module cannot be imported becomes a subcommand that says
    which package is missing and how to install it."""
    try:
        add = entry.load()
    except ImportError as exc:
        missing = getattr(exc, "name", None) or str(exc)
        p = sub.add_parser(entry.name, help=f"(not installed: needs {missing})", add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER)

        def unavailable(args, _missing=missing, _name=entry.name) -> int:
            raise RmlibError(f"`rmlib {_name}` is part of the book, which needs the book extra ({_missing} is not "
                             f"installed): pip install -e '.[book]', or `make venv`")

        p.set_defaults(func=unavailable)
        return
    add(sub)


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
