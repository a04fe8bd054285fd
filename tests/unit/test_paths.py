"""rmbook.paths: the book's checkout folders, given to rmlib only where the environment names none (#64 item 4)."""
from __future__ import annotations

import os

from rmbook import paths
from rmlib import config


def test_the_checkout_folders_fill_only_what_the_environment_leaves_unset(tmp_path, monkeypatch):
    monkeypatch.delenv(config.DATA_ENV, raising=False)
    monkeypatch.delenv(config.MIRROR_ENV, raising=False)  # restored afterwards, whatever the call sets
    monkeypatch.setenv(config.CACHE_ENV, str(tmp_path / "mine"))  # a user's (or the tests') own cache wins
    paths.use_checkout_folders()
    assert config.data_dir() == (paths.ROOT / "data" / "external").resolve()
    assert config.cache_dir() == (tmp_path / "mine").resolve()
    assert os.environ[config.DATA_ENV] == str(paths.ROOT / "data" / "external")


def test_rmlib_alone_uses_the_users_folders_not_the_checkouts(tmp_path, monkeypatch):
    for name in (config.DATA_ENV, config.CACHE_ENV, config.MIRROR_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert config.cache_dir() == (tmp_path / "xdg" / "rmlib").resolve() and config.mirror_dir() is None
    assert not config.cache_dir().is_relative_to(paths.ROOT)


def test_the_book_results_folders_are_the_books_and_each_reruns(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "BOOK_EXECUTED", tmp_path)
    (tmp_path / "reruns" / "x-1234" / "results").mkdir(parents=True)
    (tmp_path / "reruns" / "y-5678").mkdir()  # no results folder: not listed
    assert paths.book_results_dirs() == [(tmp_path / "results").resolve(),
                                         (tmp_path / "reruns" / "x-1234" / "results").resolve()]
