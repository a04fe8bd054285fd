"""#62: one writer per page, a page written whole, and a stamp that says which page it describes.

Two reruns of `about` with the same parameters, started a few seconds apart, left a page with 7 of its 14 code
cells executed and no rerun note, and the next run said "about: up to date". An interrupted `make book` left a
half-executed page that `rmlib book html` published. These tests drive the runner with papermill replaced by a
stand-in that writes the page cell by cell, slowly, as papermill does."""
from __future__ import annotations

import json
import shutil
import threading
import time

import pytest

from rmbook import book
from rmbook.book import runner, stamps


def _slow_execute(started: threading.Event | None = None, stop_after: int | None = None):
    """papermill's stand-in: writes the output after each cell, as papermill saves as it goes."""
    def execute(source, out, **kwargs):
        nb = json.loads(open(source, encoding="utf-8").read())
        cells = nb["cells"]
        for i in range(1, len(cells) + 1):
            with open(out, "w", encoding="utf-8") as f:
                json.dump({**nb, "cells": cells[:i]}, f)
            if started is not None:
                started.set()
            if stop_after is not None and i == stop_after:
                raise KeyboardInterrupt  # make book stopped half way
            time.sleep(0.02)
    return execute


def test_two_runs_of_one_page_never_interleave(tmp_path, monkeypatch):
    import papermill

    started = threading.Event()
    monkeypatch.setattr(papermill, "execute_notebook", _slow_execute(started))
    first_lines, second_lines, errors = [], [], []

    def first():
        try:
            runner.run_chapter("about", tiny=True, output_dir=tmp_path, log=first_lines.append)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    t = threading.Thread(target=first)
    t.start()
    assert started.wait(20)
    second = runner.run_chapter("about", tiny=True, output_dir=tmp_path, log=second_lines.append)
    t.join(60)
    assert not errors
    assert any("waiting for another run of this page" in line for line in second_lines), second_lines
    assert not second.ran and second_lines[-1] == "[book] about: up to date"  # it waited, then found it current
    assert book.page_problem("about", tmp_path) is None
    template_cells = len(book.chapter_cells("about")["cells"])
    page = json.loads((tmp_path / "about.ipynb").read_text())
    assert len(page["cells"]) >= template_cells - 1  # the whole page (less the cell the table replaces)


def test_a_run_stopped_half_way_leaves_no_current_page(tmp_path, monkeypatch):
    import papermill

    monkeypatch.setattr(papermill, "execute_notebook", _slow_execute())
    runner.run_chapter("about", tiny=True, output_dir=tmp_path, log=lambda *_: None)
    assert book.stale_reason("about", {}, tmp_path) is None
    monkeypatch.setattr(papermill, "execute_notebook", _slow_execute(stop_after=3))
    with pytest.raises(KeyboardInterrupt):
        runner.run_chapter("about", tiny=True, output_dir=tmp_path, log=lambda *_: None, force=True)
    assert len(json.loads((tmp_path / "about.ipynb").read_text())["cells"]) == 3  # the half page, to read
    assert book.page_problem("about", tmp_path) == "its last run failed or did not finish (no stamp)"
    assert book.stale_reason("about", {}, tmp_path) is not None
    assert not list(tmp_path.glob(".about.*.running.ipynb"))


def test_a_page_changed_after_its_stamp_is_not_current(tmp_path, monkeypatch):
    """The stamp holds the page's sha256: a page rewritten by another run (or by hand) is never 'up to date'."""
    import papermill

    monkeypatch.setattr(papermill, "execute_notebook", _slow_execute())
    runner.run_chapter("about", tiny=True, output_dir=tmp_path, log=lambda *_: None)
    page = tmp_path / "about.ipynb"
    nb = json.loads(page.read_text())
    page.write_text(json.dumps({**nb, "cells": nb["cells"][:2]}))
    assert "not the one its run wrote" in book.stale_reason("about", {}, tmp_path)


def test_a_stamp_keeps_the_local_models_a_run_swept_and_the_installed_packages(tmp_path, monkeypatch):
    """A chapter that swept a `local:` RM (as seven chapters sweep the RMs that fine-tuning trains) is stale once
    that RM holds other weights; a changed package version makes every page stale."""
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "cache"))
    rm = tmp_path / "rm"
    rm.mkdir()
    (rm / "config.json").write_text("{}")
    (rm / "model.safetensors").write_bytes(b"weights one")
    model = f"local:{rm}"
    out = tmp_path / "executed"
    out.mkdir()
    (out / "about.ipynb").write_text("{}")
    before = stamps.dependencies("about", {})
    recorded = stamps.model_fingerprints({model: {}})  # an id alone is resolved
    assert recorded[model]["path"] == str(rm.resolve())
    stamp = stamps.new_stamp(before, None, {}, 1.0, page=out / "about.ipynb", models=recorded)
    stamps.stamp_path("about", out).write_text(json.dumps(stamp))
    assert stamps.stale_reason("about", {}, out) is None
    (rm / "model.safetensors").write_bytes(b"weights two")  # retrained in place
    assert stamps.stale_reason("about", {}, out) == f"model weights changed: {model}"
    (rm / "model.safetensors").write_bytes(b"weights one")
    assert stamps.stale_reason("about", {}, out) is None
    shutil.rmtree(rm)
    assert stamps.stale_reason("about", {}, out) == f"model weights changed: {model}"
    monkeypatch.setattr(stamps, "environment_lock", lambda: "another environment")
    assert stamps.stale_reason("about", {}, out) == "installed packages changed"


def test_the_kernels_record_names_the_local_models_it_fingerprinted(tmp_path, monkeypatch):
    from rmbook.book import imported
    from rmlib import trained

    monkeypatch.setitem(trained.FINGERPRINTED, "local:/some/rm", {"path": "/some/rm", "fingerprint": "files-content:abc"})
    monkeypatch.setenv(imported.RECORD_ENV, str(tmp_path / "record.json"))
    exec(imported.RECORD_SOURCE, {})
    assert imported.read_models(tmp_path / "record.json")["local:/some/rm"] == {"path": "/some/rm",
                                                                                "fingerprint": "files-content:abc"}


def test_a_model_is_checked_at_the_folder_its_run_used_whatever_the_cache_setting_now(tmp_path, monkeypatch):
    """The tests' isolated runs train `local:ft-...` RMs under an RMLIB_CACHE_DIR set for the run only; a check made
    without it resolved the ids in another cache, found nothing, and called every such page stale (a rerun that
    raced the HTML build). The stamp keeps each model's folder, and the check fingerprints that folder."""
    from rmlib.trained import local_rm_dir

    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "run-cache"))
    folder = local_rm_dir("ft-demo")
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"weights")
    recorded = stamps.model_fingerprints({"local:ft-demo": {}})
    assert recorded["local:ft-demo"]["fingerprint"].startswith("files-content:")
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path / "another-cache"))
    assert stamps.model_fingerprints(recorded) == recorded
