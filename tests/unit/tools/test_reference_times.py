"""tools/reference_times.py: the reference timings come only from runs with the chapters' full parameters."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from rmbook import book
from rmbook.book import runner

_spec = importlib.util.spec_from_file_location("reference_times",
                                               Path(__file__).resolve().parents[3] / "tools" / "reference_times.py")
rt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rt)


def _stamp(executed: Path, name: str, params: dict, seconds: float, costs: dict | None = None):
    book.stamp_path(name, executed).write_text(json.dumps({"hash": "x", "parameters": params, "seconds": seconds,
                                                           **({"costs": costs} if costs else {})}, default=str))


def test_only_full_parameter_runs_become_reference_timings(tmp_path):
    executed, out = tmp_path / "executed", tmp_path / "reference_times.yaml"
    executed.mkdir()
    full = {**book.parameters("heterogeneity", validate=False), book.RESULTS_PARAMETER: "/somewhere/results"}
    _stamp(executed, "heterogeneity", full, 42.04)
    _stamp(executed, "distributions", {"MODE": "published", "TOP_K": 3}, 7.0)    # a hand-parameterised run
    _stamp(executed, "about", book.parameters("about", tiny=True, validate=False), 5.0)  # tiny defaults
    assert rt.main(["--executed", str(executed), "--out", str(out), "--only-new"]) == 0
    assert runner.reference_seconds(out) == {"heterogeneity": 42.0}
    out.write_text(out.read_text().replace("heterogeneity: 42.0", "heterogeneity: 42.0\n  method: 500.0"))
    assert rt.main(["--executed", str(executed), "--out", str(out)]) == 0  # keeps what it cannot replace
    assert runner.reference_seconds(out) == {"heterogeneity": 42.0, "method": 500.0}


def test_no_full_run_stamps_is_an_error_and_writes_nothing(tmp_path):
    out = tmp_path / "reference_times.yaml"
    assert rt.main(["--executed", str(tmp_path), "--out", str(out)]) == 1
    assert not out.exists()


def test_calibrate_records_this_machines_speed_and_a_later_run_keeps_it(tmp_path, monkeypatch):
    executed, out = tmp_path / "executed", tmp_path / "reference_times.yaml"
    executed.mkdir()
    _stamp(executed, "heterogeneity", book.parameters("heterogeneity", validate=False), 42.0)
    monkeypatch.setattr(rt.speed, "calibrate",
                        lambda: {"dtype": "bfloat16", "tokens_per_s": 1234.5, "python_per_s": 50.0})
    assert rt.main(["--executed", str(executed), "--out", str(out), "--calibrate"]) == 0
    cal = runner.reference_calibration(out)
    assert cal["tokens_per_s"] == 1234.5 and cal["dtype"] == "bfloat16" and "load" in cal["measured"]
    assert cal["python_per_s"] == 50.0
    monkeypatch.setattr(rt.speed, "calibrate", lambda: {"dtype": "bfloat16", "tokens_per_s": 1.0})
    assert rt.main(["--executed", str(executed), "--out", str(out)]) == 0  # without --calibrate: kept
    assert runner.reference_calibration(out)["tokens_per_s"] == 1234.5


def test_calibrate_alone_keeps_the_timings(tmp_path, monkeypatch):
    out = tmp_path / "reference_times.yaml"
    out.write_text("seconds: {about: 7.4}\nmeasured: {about: stamp of 2026-12-05, 2 CPUs}\n")
    monkeypatch.setattr(rt.speed, "calibrate", lambda: {"dtype": "bfloat16", "tokens_per_s": 999.0})
    assert rt.main(["--executed", str(tmp_path / "none"), "--out", str(out), "--calibrate"]) == 0
    assert runner.reference_seconds(out) == {"about": 7.4} and runner.reference_calibration(out)["tokens_per_s"] == 999.0


def test_each_chapters_compute_seconds_are_written_from_its_stamps_costs(tmp_path):
    """#61 item 5: a chapter's forwards and the rest scale differently between machines, so the file keeps the
    compute part (the stamp's sweep, answers, train, frozen and evaluate phases) beside the total."""
    executed, out = tmp_path / "executed", tmp_path / "reference_times.yaml"
    executed.mkdir()
    phases = {"load": {"seconds": 30.0}, "sweep": {"seconds": 100.0}, "answers": {"seconds": 20.5},
              "train": {"seconds": 0.0}}
    _stamp(executed, "method", book.parameters("method", validate=False), 200.0, {"phases": phases})
    _stamp(executed, "heterogeneity", book.parameters("heterogeneity", validate=False), 42.0)  # no costs recorded
    assert rt.main(["--executed", str(executed), "--out", str(out), "--only-new"]) == 0
    assert runner.reference_compute_seconds(out) == {"method": 120.5}
    assert runner.reference_seconds(out) == {"heterogeneity": 42.0, "method": 200.0}
