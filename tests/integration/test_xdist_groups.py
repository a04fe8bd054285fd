"""`make test`'s ``--dist loadgroup`` really keeps an xdist group on one worker (#61).

The suite relies on it: the two Ray test files share one local cluster at a time, and the two-process cold load's
module fixture is set up once (tests/unit/test_xdist_groups.py checks the marks). With pytest 9.2.0 and pytest-xdist
3.8.0 the grouping silently did nothing (pytest-xdist#1386: xdist marks a group by rewriting ``item._nodeid``, which
pytest 9.2 no longer reads): a clean `make test` at 8cd7631 ran the grouped tests on both workers. This runs a small
session the way `make test` does and counts the setups of a grouped module fixture.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

GROUPED = '''
import os, time
import pytest

pytestmark = pytest.mark.xdist_group("costly")


@pytest.fixture(scope="module")
def costly(tmp_path_factory):
    with open(os.environ["SETUPS_LOG"], "a") as f:
        f.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + "\\n")
    return 1


@pytest.mark.parametrize("i", range(4))
def test_uses_it(costly, i):
    time.sleep(0.1)
'''


def test_loadgroup_runs_a_group_on_one_worker_and_sets_its_module_fixture_up_once(tmp_path):
    (tmp_path / "test_grouped.py").write_text(textwrap.dedent(GROUPED))
    for i in range(3):  # other work for the second worker
        (tmp_path / f"test_other{i}.py").write_text("import time\n\n\ndef test_a():\n    time.sleep(0.1)\n\n\n"
                                                   "def test_b():\n    time.sleep(0.1)\n")
    log = tmp_path / "setups.log"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup", "-p", "no:randomly",
                          "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "SETUPS_LOG": str(log)})
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "10 passed" in run.stdout
    assert log.read_text().split() in (["gw0"], ["gw1"]), log.read_text()  # one worker, one setup
