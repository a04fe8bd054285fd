"""The book's subcommands of the ``rmlib`` command (layer 9): ``card`` (``card.py``: a value card of any RM, placed
among the paper RMs, :mod:`rmbook.chapters.value_cards.analysis`) and ``book vendor``/``book run``/``book html``/``book
course`` (``book.py``: :mod:`rmbook.book`, what the Makefile calls).

``rmlib`` imports nothing of the book: its parser finds these two through the ``rmlib.commands`` entry points that
``pyproject.toml`` declares (:func:`rmlib.cli.main.build_parser`).
"""
from rmbook.cli.book import add_subparser as add_book_commands
from rmbook.cli.card import add_card_command

__all__ = ["add_book_commands", "add_card_command"]
