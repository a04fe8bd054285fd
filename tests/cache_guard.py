"""The suite's own rmlib cache, and the guard that keeps the checkout's cache out of the tests (#64 item 5).

Every test runs with ``RMLIB_CACHE_DIR`` at :func:`suite_cache` (``.pytest_cache/d/rmlib-cache``: pytest's folder
for plugins, so ``pytest --cache-clear`` and ``make clean`` empty it and a second ``make test`` reuses its sweeps
and de-quantised models), set by ``tests/conftest.py`` before any test runs, whatever the environment said (the
Makefile exports the checkout's ``.cache/rmlib`` for the book). Tests that want a cold cache still set their own
temporary folder. The checkout's ``.cache/rmlib`` is listed (names, sizes, modification times: a cache of many GB
is never hashed) when the session starts and again when it ends, and the session fails if the two differ, naming
what changed, so the first ``make book`` after ``make test`` is as cold (or as warm) as before it.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

SUITE_CACHE = "rmlib-cache"  # under pytest's .pytest_cache/d/
CHECKOUT_CACHE = Path(".cache") / "rmlib"  # under the checkout's root: the book's cache (the Makefile's)
_LISTED = pytest.StashKey[dict]()  # the checkout cache's listing when the session started


def suite_cache(config) -> Path:
    """The tests' rmlib cache, created: pytest's plugin folder ``.pytest_cache/d/rmlib-cache`` (or the same path
    under ``-p no:cacheprovider``)."""
    cache = getattr(config, "cache", None)
    if cache is not None:
        return Path(cache.mkdir(SUITE_CACHE))
    folder = Path(config.rootpath) / ".pytest_cache" / "d" / SUITE_CACHE
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    """{path relative to ``folder``: (size, mtime in ns)} of every file and folder below it; {} when it is absent."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            try:
                st = path.lstat()
            except OSError:  # removed while listed
                continue
            found[str(path.relative_to(folder))] = (st.st_size if name in filenames else 0, st.st_mtime_ns)
    return found


def changes(before: dict, after: dict, limit: int = 10) -> list[str]:
    """What differs between two listings, as lines ("added x", "removed y", "changed z"), at most ``limit`` of them
    and a count of the rest."""
    lines = [f"added {p}" for p in sorted(after.keys() - before.keys())]
    lines += [f"removed {p}" for p in sorted(before.keys() - after.keys())]
    lines += [f"changed {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]
    return lines[:limit] + ([f"... and {len(lines) - limit} more"] if len(lines) > limit else [])


def start(config) -> None:
    """Point ``RMLIB_CACHE_DIR`` at the suite's cache (the kernels and commands the tests start inherit it) and list
    the checkout's cache."""
    os.environ["RMLIB_CACHE_DIR"] = str(suite_cache(config))
    config.stash[_LISTED] = listing(Path(config.rootpath) / CHECKOUT_CACHE)


def kept(config) -> None:
    """After each test: ``RMLIB_CACHE_DIR`` is still set, and not to the checkout's cache. A test that set it and
    then deleted it (rather than restoring it with monkeypatch) left it unset, and the next runner call in the same
    worker filled it with the checkout's cache (CI, 2026-12-07): the variable is put back to the suite's cache and the
    test that changed it fails, named. A temporary folder is left alone: a module's fixture may hold one for all of its
    tests (tests/integration/train_support.py's ``module_cache``) and restores it when the module ends."""
    expected, found = str(suite_cache(config)), os.environ.get("RMLIB_CACHE_DIR")
    checkout = (Path(config.rootpath) / CHECKOUT_CACHE).resolve()
    if found and not Path(found).resolve().is_relative_to(checkout):
        return
    os.environ["RMLIB_CACHE_DIR"] = expected
    raise AssertionError(f"this test left RMLIB_CACHE_DIR at {found!r}, not the suite's cache {expected} or a "
                         "folder of its own (use monkeypatch.setenv, which restores it)")


def finish(session) -> list[str]:
    """The changes to the checkout's cache since :func:`start`; any fail the session (exit status 1) with a message.
    A pytest-xdist worker checks nothing: its controller lists once for all of them."""
    config = session.config
    if hasattr(config, "workerinput") or _LISTED not in config.stash:
        return []
    folder = Path(config.rootpath) / CHECKOUT_CACHE
    changed = changes(config.stash[_LISTED], listing(folder))
    if changed:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        message = f"the tests changed the checkout's cache {folder} (#64 item 5):\n  " + "\n  ".join(changed)
        if reporter is not None:
            reporter.write_line(message, red=True)
        else:
            print(message)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    return changed
