"""rmlib.storage.atomic: temporary names and their orphans."""
from __future__ import annotations

import pytest

from rmlib.storage import atomic


@pytest.mark.parametrize("pid", [0, 99999999999, 10**30])
def test_a_temporary_name_with_a_pid_that_cannot_run_is_an_orphan(tmp_path, pid):
    """#62: `.x.99999999999.deadbeef.tmp` raised OverflowError from os.kill under `rmlib verify`; a pid of 0 named
    this process group. Such a pid is not running, so the file is an orphan."""
    p = tmp_path / f".x.{pid}.deadbeef.tmp"
    p.write_text("left")
    assert atomic.is_orphan(p)
    assert atomic.remove_orphans(tmp_path) == [p] and not p.exists()
