"""rmlib.config: progress bars that `make book` can show without putting a bar on the page."""
from __future__ import annotations

from rmlib import config


def test_with_a_progress_file_bars_go_there_as_text_and_the_last_state_is_read_back(tmp_path, monkeypatch):
    path = tmp_path / "progress.txt"
    monkeypatch.setenv(config.PROGRESS_FILE_ENV, str(path))
    monkeypatch.setenv("TQDM_DISABLE", "1")  # as in the book: pages get no bars, the file still does
    with config.progress_bar(total=5, desc="training x", unit="step", progress=False) as bar:
        for _ in range(5):
            bar.update(1)
    last = config.latest_progress(path)
    assert last is not None and last.startswith("training x") and "5/5" in last


def test_without_a_progress_file_nothing_is_written_and_a_disabled_bar_stays_silent(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(config.PROGRESS_FILE_ENV, raising=False)
    monkeypatch.setenv("TQDM_DISABLE", "1")
    with config.progress_bar(total=3) as bar:
        bar.update(3)
    assert capsys.readouterr().err == ""
    assert config.latest_progress(tmp_path / "missing.txt") is None


def test_latest_progress_takes_the_last_carriage_return_segment(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("a 1/3\ra 2/3\ra 3/3\n\rb 1/2\r")
    assert config.latest_progress(path) == "b 1/2"
