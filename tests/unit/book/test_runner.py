"""The runner's progress lines: chapter i/N and the time left, from the stamps of the last run."""
from __future__ import annotations

import json

import pytest

from rmbook import book
from rmbook.book import runner


@pytest.fixture(autouse=True)
def no_reference_times(tmp_path, monkeypatch):
    """These tests build their own timings; the project's book/reference_times.yaml must not leak in."""
    monkeypatch.setattr(runner, "REFERENCE_TIMES", tmp_path / "no-reference-times.yaml")


def test_remaining_estimate_sums_last_run_times_and_names_chapters_never_timed():
    assert runner.remaining_estimate(["a", "b"], {"a": 30.0, "b": 20.0}) == "about 50 s left"
    assert runner.remaining_estimate(["a", "b"], {"a": 600.0, "b": 120.0}) == "about 12 min left"
    assert runner.remaining_estimate(["a", "b"], {"a": 30.0, "b": None}) == "about 30 s left + never timed: b"
    assert runner.remaining_estimate(["b"], {"b": None}) == "never timed: b"


def test_remaining_estimate_falls_back_on_reference_timings_and_says_so():
    ref = {"b": 600.0, "c": 60.0}
    assert runner.remaining_estimate(["b"], {"b": None}, ref) == "about 10 min left (by the reference timings)"
    assert (runner.remaining_estimate(["a", "b", "d"], {"a": 60.0, "b": None, "d": None}, ref)
            == "about 11 min left (1 chapter by the reference timings) + never timed: d")
    assert runner.remaining_estimate(["c"], {"c": 30.0}, ref) == "about 30 s left"  # this machine's own time wins


def test_a_cold_build_shows_the_time_left_from_the_reference_file(tmp_path, monkeypatch):
    """A fresh clone has no stamps: the first `make book` used to say only "never timed" for every chapter."""
    ref = tmp_path / "reference_times.yaml"
    ref.write_text("machine: {cpus: 2}\nseconds: {about: 60, heterogeneity: 540.0}\n")
    monkeypatch.setattr(runner, "REFERENCE_TIMES", ref)
    monkeypatch.setattr(runner, "run_chapter", lambda ch, **kw: runner.RunResult(ch.name, tmp_path, True, 0.0, {}))
    lines = []
    runner.run_chapters(["about", "heterogeneity", "method"], output_dir=tmp_path, log=lines.append)
    assert "not scaled to this one" in lines[0]  # this file records no calibration
    assert lines[1] == ("[book] 3 of 3 chapters to run, about 10 min left (by the reference timings) "
                        "+ never timed: method")
    lines.clear()  # a tiny run is not what the reference timed
    runner.run_chapters(["about"], output_dir=tmp_path, log=lines.append, tiny=True, force=True)
    assert lines[0] == "[book] 1 of 1 chapter to run, never timed: about"


def test_the_projects_reference_file_reads_and_names_real_chapters():
    ref = runner.reference_seconds(book.ROOT / "book" / "reference_times.yaml")  # the autouse fixture hides it
    assert ref and set(ref) <= set(book.chapters()) and all(s > 0 for s in ref.values())


def test_previous_seconds_reads_the_stamp_and_is_none_without_one(tmp_path):
    assert runner.previous_seconds("about", tmp_path) is None
    book.stamp_path("about", tmp_path).write_text(json.dumps({"hash": "x", "seconds": 12.5}))
    assert runner.previous_seconds("about", tmp_path) == 12.5
    book.stamp_path("about", tmp_path).write_text("not json")
    assert runner.previous_seconds("about", tmp_path) is None


def test_run_chapters_logs_each_stale_chapter_with_its_place_and_the_time_left(tmp_path, monkeypatch):
    for name, seconds in (("about", 60.0), ("heterogeneity", 120.0)):
        book.stamp_path(name, tmp_path).write_text(json.dumps({"hash": "old", "seconds": seconds}))
    ran = []

    def fake_run(ch, **kwargs):  # run_chapters hands over each chapter resolved once
        ran.append(ch.name)
        return runner.RunResult(ch.name, tmp_path / f"{ch.name}.ipynb", True, 0.0, {})

    monkeypatch.setattr(runner, "run_chapter", fake_run)
    lines = []
    runner.run_chapters(["about", "heterogeneity", "method"], output_dir=tmp_path, log=lines.append)
    assert ran == ["about", "heterogeneity", "method"]
    assert lines[0] == "[book] 3 of 3 chapters to run, about 3 min left + never timed: method"
    assert lines[1] == "[book] chapter 1/3: about, about 3 min left + never timed: method"
    assert lines[2] == "[book] chapter 2/3: heterogeneity, about 2 min left + never timed: method"
    assert lines[3] == "[book] chapter 3/3: method, never timed: method"


def test_run_chapters_says_which_chapter_failed_and_goes_on(tmp_path, monkeypatch):
    def fake_run(ch, **kwargs):
        if ch.name == "about":
            raise book.BookError("about: cell 3 raised ValueError")
        return runner.RunResult(ch.name, tmp_path / f"{ch.name}.ipynb", True, 0.0, {})

    monkeypatch.setattr(runner, "run_chapter", fake_run)
    lines = []
    with pytest.raises(book.BookError, match="1 chapter failed"):
        runner.run_chapters(["about", "method"], output_dir=tmp_path, log=lines.append, keep_going=True)
    assert "[book] about: FAILED" in lines and lines[-1].startswith("[book] chapter 2/2: method")


def test_a_chapter_that_becomes_stale_during_the_run_is_counted_when_it_runs(tmp_path, monkeypatch):
    stale_now = {"about"}
    monkeypatch.setattr(runner, "_is_stale", lambda ch, output_dir, kwargs: ch.name in stale_now)

    def fake_run(ch, **kwargs):
        stale_now.add("method")  # as the claims page does once the results it reads changed
        return runner.RunResult(ch.name, tmp_path / f"{ch.name}.ipynb", True, 0.0, {})

    monkeypatch.setattr(runner, "run_chapter", fake_run)
    lines = []
    runner.run_chapters(["about", "method"], output_dir=tmp_path, log=lines.append)
    assert lines[0] == "[book] 1 of 2 chapters to run, never timed: about"
    assert lines[-1] == "[book] chapter 2/2: method, never timed: method"


def test_a_running_chapter_echoes_its_progress_bars(tmp_path, monkeypatch):
    """The cold build's 45-minute fine-tuning step must not look hung: what rmlib's bars write to the progress
    file while papermill runs is echoed by the runner (and the page gets no bar)."""
    import shutil
    import time

    import papermill

    from rmlib import config

    def fake_execute(source, out, **kwargs):
        shutil.copy(source, out)
        with config.progress_bar(total=4, desc="training demo", unit="step") as bar:
            for _ in range(4):
                bar.update(1)
                time.sleep(0.1)
        time.sleep(0.3)

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    lines = []
    runner.run_chapter("about", tiny=True, output_dir=tmp_path, log=lines.append, progress_every=0.05, force=True)
    echoed = [line for line in lines if line.startswith("[book] about: training demo")]
    assert echoed and "4/4" in echoed[-1]
    assert config.PROGRESS_FILE_ENV not in __import__("os").environ  # restored after the run


def test_reference_timings_are_scaled_by_this_machines_measured_speed(tmp_path, monkeypatch):
    """#43 item 8: a newcomer's first `make book` showed the AMX reference machine's minutes on any machine; the
    estimate is now calibrated by a short measurement (a small LM's forwards) against the one recorded with the
    timings."""
    ref = tmp_path / "reference_times.yaml"
    ref.write_text("seconds: {about: 60, heterogeneity: 540.0}\ncalibration: {dtype: bfloat16, tokens_per_s: 1200.0}\n")
    monkeypatch.setattr(runner, "REFERENCE_TIMES", ref)
    monkeypatch.setattr(runner, "run_chapter", lambda ch, **kw: runner.RunResult(ch.name, tmp_path, True, 0.0, {}))
    measured = []
    monkeypatch.setattr(runner, "calibrate",
                        lambda: measured.append(1) or {"dtype": "float32", "tokens_per_s": 300.0})
    lines = []
    runner.run_chapters(["about", "heterogeneity"], output_dir=tmp_path, log=lines.append)
    assert lines[0] == ("[book] estimates for chapters never run here are calibrated by float32 forwards "
                        "of a small LM: 300 tokens/s here against 1,200 (bfloat16) on the reference machine, so 4.0× "
                        "its times")
    assert lines[1] == "[book] 2 of 2 chapters to run, about 40 min left (by the reference timings × 4.0 for this machine)"
    assert measured == [1]  # measured once per run, not per chapter


def test_no_measurement_when_every_chapter_has_its_own_timing_or_no_calibration(tmp_path):
    def measure():
        raise AssertionError("measured although nothing needed it")

    ref = {"about": 60.0}
    cal = {"dtype": "bfloat16", "tokens_per_s": 1000.0}
    assert runner.calibrated_reference(["about"], {"about": 12.0}, ref, measure=measure, calibration=cal) == (ref, None)
    assert runner.calibrated_reference(["x"], {"x": None}, ref, measure=measure, calibration=cal) == (ref, None)
    logged = []
    implausible = runner.calibrated_reference(["about"], {"about": None}, ref, logged.append,
                                              measure=lambda: {"dtype": "float32", "tokens_per_s": 0.001}, calibration=cal)
    assert implausible == (ref, None) and "could not be compared" in logged[0]


def test_compute_phases_and_the_rest_scale_by_their_own_factors(monkeypatch):
    """#61 item 5: one factor from a small LM's forwards scaled whole chapters, so the AMX Xeon's build was predicted
    from the EPYC's at 48 min where it took 63.6, and the published-mode chapters (no forwards) 2-3× off. The compute
    seconds scale by the forwards' ratio, the rest by a Python measurement's."""
    cal = {"dtype": "bfloat16", "tokens_per_s": 1000.0, "python_per_s": 20.0}
    here = {"dtype": "float32", "tokens_per_s": 250.0, "python_per_s": 10.0}   # 4x slower forwards, 2x slower Python
    ref = {"finetuning": 1000.0, "heterogeneity": 60.0, "method": 100.0}
    logged = []
    scaled, overall = runner.calibrated_reference(list(ref), {n: None for n in ref}, ref, logged.append,
                                                  measure=lambda: here, calibration=cal,
                                                  compute={"finetuning": 800.0, "heterogeneity": 0.0})
    assert scaled == {"finetuning": 800 * 4 + 200 * 2, "heterogeneity": 120.0, "method": 400.0}  # method: unsplit
    assert overall == sum(scaled.values()) / sum(ref.values())
    assert "4.0× its compute phases" in logged[0] and "2.0× the rest" in logged[0]
    # a reference without the Python measurement scales whole chapters by the forwards, as before
    old, _ = runner.calibrated_reference(["heterogeneity"], {"heterogeneity": None}, ref, logged.append,
                                         measure=lambda: here, calibration={"dtype": "bfloat16", "tokens_per_s": 1000.0},
                                         compute={"heterogeneity": 0.0})
    assert old["heterogeneity"] == 240.0


def test_the_speed_measurement_and_factor():
    from rmbook.book import speed

    got = speed.lm_tokens_per_s("float32", seconds=0.05)
    assert got["dtype"] == "float32" and got["tokens_per_s"] > 0
    assert speed.python_ops_per_s(seconds=0.05)["python_per_s"] > 0
    assert speed.rest_factor({"python_per_s": 20.0}, {"python_per_s": 5.0}) == 4.0
    assert speed.rest_factor({"tokens_per_s": 20.0}, {"python_per_s": 5.0}) is None
    assert speed.speed_factor({"tokens_per_s": 1000.0}, {"tokens_per_s": 250.0}) == 4.0
    assert speed.speed_factor({"tokens_per_s": 1000.0}, {"tokens_per_s": 0.0}) is None
    assert speed.speed_factor(None, {"tokens_per_s": 1.0}) is None
    assert speed.speed_factor({"tokens_per_s": 1e6}, {"tokens_per_s": 1.0}) is None
    # a machine about twice as fast at the book's work (an AMX Xeon against the reference EPYC) is scaled, not refused
    assert speed.speed_factor({"tokens_per_s": 1000.0}, {"tokens_per_s": 2050.0}) == 1000.0 / 2050.0
    # a bare matrix-product speed, as recorded before, is not compared with a forward's tokens/s
    assert speed.speed_factor({"gflops": 386.4}, {"tokens_per_s": 1.0}) is None


def test_an_old_matrix_product_calibration_is_not_used(tmp_path):
    ref = tmp_path / "reference_times.yaml"
    ref.write_text("seconds: {about: 60}\ncalibration: {dtype: bfloat16, gflops: 386.4}\n")
    assert runner.reference_calibration(ref) is None


def test_an_estimate_runs_nothing_and_says_the_whole_books_time(tmp_path, monkeypatch):
    """`make book` says at the start what the whole book will take: before, its first line covered fine-tuning alone
    (`rmlib book run finetuning`), about half of a cold build."""
    ref = tmp_path / "reference_times.yaml"
    ref.write_text("seconds: {about: 60, heterogeneity: 540.0}\n")
    monkeypatch.setattr(runner, "REFERENCE_TIMES", ref)

    def run(ch, **kw):
        raise AssertionError("an estimate ran a chapter")

    monkeypatch.setattr(runner, "run_chapter", run)
    lines = []
    assert runner.run_chapters(["about", "heterogeneity"], output_dir=tmp_path, log=lines.append,
                               estimate_only=True) == []
    assert lines[1:] == ["[book] 2 of 2 chapters to run, about 10 min left (by the reference timings)"]


def test_an_uncalibrated_reference_says_so_and_measures_nothing():
    logged = []
    got = runner.calibrated_reference(["about"], {"about": None}, {"about": 60.0}, logged.append,
                                      measure=lambda: (_ for _ in ()).throw(AssertionError("measured")),
                                      calibration=None)
    assert got == ({"about": 60.0}, None) and "not scaled to this one" in logged[0]


def test_an_estimate_measured_on_a_busy_machine_says_so():
    """Before: measured at load 2-3 on 2 cores, the calibration read 3,097 tokens/s against a quiet 28,397 and the
    estimate said 'about 436 min' with no word that other work was running (AMX Xeon, 2026-12-07)."""
    from rmbook.book import speed

    ref = {"dtype": "bfloat16", "tokens_per_s": 28397.0, "python_per_s": 88.2}
    busy = {"dtype": "bfloat16", "tokens_per_s": 3097.0, "python_per_s": 72.1, "load": 3.9, "cores": 2}
    quiet = {**busy, "load": 0.3}
    assert "while other work was running (load 3.9 on 2 cores)" in speed.calibration_text(ref, busy, 9.2, 1.2)
    assert "other work" not in speed.calibration_text(ref, quiet, 9.2, 1.2)
    assert "other work" not in speed.calibration_text(ref, {k: v for k, v in busy.items() if k != "load"}, 9.2)
    got = speed.calibrate()
    assert got["cores"] >= 1 and got["load"] >= 0
