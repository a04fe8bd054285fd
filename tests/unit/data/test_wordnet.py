"""rmlib.data.wordnet: WordNet 3.0 read by NLTK from the verified data folder, and a clear error without it."""
from __future__ import annotations

import pytest


def test_wordnet_loads_from_the_data_folder_through_nltk(wn):
    from rmlib import config

    assert wn.get_version() == "3.0"
    assert wn.synsets("dog", pos="n")[0].lexname() == "noun.animal"
    link = config.cache_dir() / "nltk_data" / "corpora" / "wordnet"
    assert link.is_symlink()  # a link to the verified data folder, not a copy or a download


def test_wordnet_missing_data_is_a_clear_error(tmp_path, monkeypatch):
    import rmlib.data
    from rmlib.data import DataError
    from rmlib.data.wordnet import load_wordnet

    monkeypatch.setenv("RMLIB_DATA_DIR", str(tmp_path))
    rmlib.data.clear_caches()
    load_wordnet.cache_clear()
    try:
        with pytest.raises(DataError, match="make data"):
            load_wordnet()
    finally:
        monkeypatch.undo()
        rmlib.data.clear_caches()
        load_wordnet.cache_clear()
