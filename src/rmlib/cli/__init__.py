"""`rmlib` command line (layer 5): sweeps, the model registry, audits, cache verification and data.

Each subcommand is a thin front to a package below: ``models``/``sweep``/``audit``/``verify`` (``commands.py``:
:mod:`rmlib.registry`, :mod:`rmlib.engine`) and ``data fetch``/``data list`` (``data.py``: :mod:`rmlib.data`),
``plan``/``run`` (``plan.py``: plans of many sweeps, serial or on Ray), ``check`` (``check.py``: the pre-flight
checks of :mod:`rmlib.engine.preflight`, before a long GPU sweep), ``gcg`` (``gcg.py``: multi-token optima by GCG
search, :mod:`rmlib.engine.gcg`). The book adds ``card`` and ``book`` as plug-ins (:mod:`rmbook.cli`; the
``rmlib.commands`` entry points), so this package imports nothing of the book.

``options.py`` declares the options that say how a model is loaded, once for every command that loads one;
``main.py`` holds the parser of every subcommand and is the one place that turns errors into messages and exit codes;
``show.py`` is what the commands print, in sentences a reader can follow (progress to stderr on a terminal only).
"""
from rmlib.cli.main import build_parser, main

__all__ = ["main", "build_parser"]
