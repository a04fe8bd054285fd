"""#61 item 1: a chapter's stamp keeps where its run's time went (rmlib.costs, counted in its kernel), the machine
and the load, and benchmarks/book_cost.py turns the stamps into the book's cost table."""
from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

from rmbook.book import imported, runner

ROOT = Path(__file__).resolve().parents[3]


def _book_cost():
    spec = importlib.util.spec_from_file_location("book_cost", ROOT / "benchmarks" / "book_cost.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_stamp_keeps_the_kernels_costs_and_the_cost_table_reads_them(tmp_path, monkeypatch):
    import shutil

    import papermill

    phases = {"train": {"seconds": 6.0, "flops": 3e12, "calls": 1}, "load": {"seconds": 1.0, "flops": 0, "calls": 2}}

    def fake_execute(source, out, **kwargs):
        shutil.copy(source, out)
        Path(os.environ[imported.RECORD_ENV]).write_text(json.dumps({"files": [], "complete": True, "costs": phases}))

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    monkeypatch.setattr(runner, "machine", lambda: {"cpu": "avx2", "cores": 2, "dtype": "float32",
                                                   "matmul_gflops": {"float32": 1000.0}})
    runner.run_chapter("about", tiny=True, output_dir=tmp_path, log=lambda *_: None)
    stamp = json.loads((tmp_path / "about.stamp").read_text())
    assert stamp["costs"]["phases"] == phases and stamp["costs"]["machine"]["cpu"] == "avx2"
    assert len(stamp["costs"]["load"]) == 2
    stamp["seconds"] = 10.0
    row = _book_cost().chapter_costs(stamp)
    assert (row["train"], row["load"], row["rest"]) == (6.0, 1.0, 3.0)
    assert row["gflops_per_s"] == 500.0 and row["share_of_peak"] == 0.5  # 3,000 GFLOP in 6 s against 1,000
    text = _book_cost().table({"about": row})
    assert "| about | 10 | 1 | 0 | 0 | 6 | 0 | 0 | 0 | 0 | 3 | 3,000 | 500 | 50% |" in text


def test_a_stamp_from_before_costs_has_no_row():
    assert _book_cost().chapter_costs({"hash": "x", "seconds": 3.0}) is None
