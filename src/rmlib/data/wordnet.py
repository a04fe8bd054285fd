"""WordNet 3.0 through NLTK's ``WordNetCorpusReader``, read from the verified data directory.

``make data`` puts the Princeton WordNet-3.0 database files in ``<data dir>/lexicons/wordnet3.0/`` (manifest key
``wordnet30``). NLTK finds corpora at ``corpora/<name>`` under one of its data paths, so :func:`load_wordnet` links
``<cache dir>/nltk_data/<folder digest>/corpora/wordnet`` to that folder and asks NLTK for ``corpora/wordnet`` there.
Each data folder gets a link of its own (:func:`nltk_root`): with one shared link, a process reading another data
folder (a second test worker, a notebook next to the book) re-pointed it, and a reader that opens its files lazily
then read the other folder's files, or was refused them by NLTK. Nothing is
downloaded from the NLTK data server and nothing is copied. NLTK (>= 3.9.3) only opens corpora that lie under one of
its data paths *after* resolving links, so the data folder itself is also put on ``nltk.data.path``.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path
from rmlib import config
from rmlib.data.files import path
from rmlib.data.manifest import load_manifest

DATASET = "wordnet30"

__all__ = ["DATASET", "wordnet_dir", "nltk_root", "load_wordnet"]


def wordnet_dir() -> Path:
    """The WordNet folder in the data directory, after checking every file against its sha256 in the manifest."""
    files = load_manifest()[DATASET].files
    folders = {path(f.path).parent for f in files}  # path() raises a DataError naming `make data` if one is off
    if len(folders) != 1:
        raise RuntimeError(f"manifest dataset {DATASET!r} spans several folders: {sorted(map(str, folders))}")
    return folders.pop()


def nltk_root(folder: Path) -> Path:
    """The NLTK data path that holds the link to WordNet ``folder``: one per folder, under the cache."""
    import hashlib

    return config.cache_dir() / "nltk_data" / hashlib.sha256(str(Path(folder).resolve()).encode()).hexdigest()[:16]


def _link(link: Path, target: Path) -> None:
    """Make ``link`` a symlink to ``target`` (replacing a stale one atomically)."""
    if link.is_symlink() and Path(os.readlink(link)) == target:
        return
    if link.exists() and not link.is_symlink():
        raise RuntimeError(f"{link} exists and is not a link; remove it so rmlib can point it at {target}")
    link.parent.mkdir(parents=True, exist_ok=True)
    tmp = link.with_name(f".{link.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    os.symlink(target, tmp, target_is_directory=True)
    os.replace(tmp, link)


@functools.lru_cache(maxsize=None)
def load_wordnet():
    """NLTK's WordNet 3.0 reader over the verified data folder (cached per process).

    Use it as ``wn = load_wordnet(); wn.synsets("dog", pos="n")[0].lexname()`` -> ``'noun.animal'``.
    """
    import warnings

    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    folder = wordnet_dir()
    root = nltk_root(folder)
    _link(root / "corpora" / "wordnet", folder)
    for p in (str(root), str(folder)):
        if p not in nltk.data.path:
            nltk.data.path.insert(0, p)
    pointer = nltk.data.find("corpora/wordnet", paths=[str(root)])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The multilingual functions are not available")
        return WordNetCorpusReader(pointer, None)
