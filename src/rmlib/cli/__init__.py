"""`rmlib` command line (layer 8): sweeps, the model registry, audits, cache verification and data.

Each subcommand is a thin front to a package below: ``models``/``sweep``/``audit``/``verify`` (``commands.py``:
:mod:`rmlib.registry`, :mod:`rmlib.engine`) and ``data fetch``/``data list`` (``data.py``: :mod:`rmlib.data`), ``plan``/``run`` (``plan.py``: plans of many sweeps, serial or on Ray), and
``book vendor``/``book run``/``book html`` (``book.py``: :mod:`rmlib.book`, what the Makefile calls).
"""
from rmlib.cli.main import build_parser, main

__all__ = ["main", "build_parser"]
