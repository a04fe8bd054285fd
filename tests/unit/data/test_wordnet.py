"""rmlib.data.wordnet: WordNet 3.0 read by NLTK from the verified data folder, and a clear error without it."""
from __future__ import annotations

from pathlib import Path

import pytest


def test_wordnet_loads_from_the_data_folder_through_nltk(wn):
    from rmlib.data.wordnet import nltk_root

    assert wn.get_version() == "3.0"
    assert wn.synsets("dog", pos="n")[0].lexname() == "noun.animal"
    link = Path(wn.root.path)  # the reader's folder (from the data directory that was set when it was loaded)
    assert link.is_symlink()  # a link to the verified data folder, not a copy or a download
    # the link of the folder it points at: named by that folder under the cache that was set when the reader was
    # loaded (an earlier test in this process may have loaded it under its own cache folder)
    assert (link.name, link.parent.name, link.parent.parent.name) == ("wordnet", "corpora",
                                                                      nltk_root(link.resolve()).name)


def test_two_data_folders_keep_links_of_their_own(wn, tmp_path, monkeypatch):
    """One link for every data folder was re-pointed by whichever process loaded WordNet last: under two pytest
    workers, one reading a session copy of the data, the other's reader opened index.verb through the link, in the
    copy, and NLTK refused it ("Unauthorized path"). Each folder now has its own link, which a second folder leaves
    alone."""
    import shutil

    import rmlib.data
    from rmlib.data.wordnet import load_wordnet

    first = Path(wn.root.path).resolve()  # the folder wn reads (lexicons/wordnet3.0 of some data directory)
    copy = tmp_path / "data" / Path(*first.parts[-2:])
    shutil.copytree(first, copy)
    monkeypatch.setenv("RMLIB_DATA_DIR", str(tmp_path / "data"))
    rmlib.data.clear_caches()
    load_wordnet.cache_clear()
    try:
        other = load_wordnet()
        assert Path(other.root.path).resolve() == copy.resolve()
        assert Path(wn.root.path).resolve() == first.resolve()  # the first reader still reads its own folder
        assert wn.synsets("run", pos="v") and other.synsets("run", pos="v")
    finally:
        monkeypatch.undo()
        rmlib.data.clear_caches()
        load_wordnet.cache_clear()


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
