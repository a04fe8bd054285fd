"""`rmlib` command line (layer 8): sweeps, the model registry, audits, cache verification and data.

Each subcommand is a thin front to a package below: ``models``/``sweep``/``audit``/``verify`` (``commands.py``:
:mod:`rmlib.registry`, :mod:`rmlib.engine`) and ``data fetch``/``data list`` (``data.py``: :mod:`rmlib.data`), ``plan``/``run`` (``plan.py``: plans of many sweeps, serial or on Ray). The
book has its own command, ``python -m rmlib.book`` (:mod:`rmlib.book.cli`).
"""
from rmlib.cli.main import build_parser, main

__all__ = ["main", "build_parser"]
