"""Research data for rmlib: provenance (data/sources.yml), checksummed fetching, and tidy loaders.

Start with `rmlib data fetch` (or `make data`), then call the loaders, e.g. `load_elo()`,
`load_dictionary_scores("big2")`, `load_preferences("hh_rlhf_harmless")`. Columns are documented in each
loader's docstring and in data/README.md.
"""
from __future__ import annotations

from pathlib import Path

from rmlib import config
from rmlib.data.fetch import DataError, is_verified
from rmlib.data.manifest import find_file


def path(key_or_relpath: str) -> Path:
    """The verified local path of a manifest file (or of a single-file dataset's only file).

    Raises DataError telling the user to run `make data` when the file is missing or corrupt.
    """
    f = find_file(key_or_relpath)
    p = config.data_dir() / f.path
    if not p.is_file():
        raise DataError(f"{f.path} is missing from the data directory {config.data_dir()}. "
                        "Fix: run `make data` (or `rmlib data fetch`), or set RMLIB_DATA_DIR to a filled data directory")
    if not is_verified(p, f.sha256):
        raise DataError(f"{p} does not match its sha256 in data/sources.yml (corrupt or edited). "
                        "Fix: run `make data` to fetch it again")
    return p


def clear_caches() -> None:
    """Forget parsed frames (they are cached per process); needed only if RMLIB_DATA_DIR changes mid-session."""
    import functools
    import sys

    from rmlib.data import fetch as _fetch

    _fetch._VERIFIED.clear()
    for name, mod in list(sys.modules.items()):
        if name.startswith("rmlib.data"):
            for obj in vars(mod).values():
                if isinstance(obj, functools._lru_cache_wrapper):
                    obj.cache_clear()


from rmlib.data.dictionary_scores import load_checkpoint_ranks, load_dictionary_scores, parse_prompt_key  # noqa: E402
from rmlib.data.elo import load_elo  # noqa: E402
from rmlib.data.frequency import load_bnc, normalise_token, token_frequency, word_frequency  # noqa: E402
from rmlib.data.identity import load_dixon, load_holistic_bias  # noqa: E402
from rmlib.data.lexicons import (  # noqa: E402
    expand_wildcards,
    load_afinn,
    load_big_two,
    load_bing_liu,
    load_mfd2,
    load_pietraszkiewicz,
    load_vader,
    load_warriner,
)
from rmlib.data.preferences import load_preferences, sample_pairs, split_pairs  # noqa: E402
from rmlib.data.prompts import load_prompts  # noqa: E402
from rmlib.data.tokens import TokenMatch, match_words_to_tokens  # noqa: E402
from rmlib.data.wordnet import load_wordnet  # noqa: E402

__all__ = [
    "DataError", "path", "clear_caches",
    "load_elo", "load_dictionary_scores", "parse_prompt_key", "load_checkpoint_ranks", "load_prompts",
    "load_big_two", "load_pietraszkiewicz", "expand_wildcards", "load_mfd2", "load_afinn", "load_bing_liu",
    "load_warriner", "load_vader", "load_bnc", "word_frequency", "token_frequency", "normalise_token",
    "load_holistic_bias", "load_dixon", "load_preferences", "sample_pairs", "split_pairs",
    "match_words_to_tokens", "TokenMatch", "load_wordnet",
]
