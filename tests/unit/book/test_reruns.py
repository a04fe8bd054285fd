"""rmbook.book.reruns: a chapter run with parameters of its own gets a page of its own, and the book's page, its
results and the claims page stay as `make book` made them (#43 item 7: `make chapter NB=x MODELS=...` replaced the
book's page and the results the claims page judges)."""
from __future__ import annotations

import hashlib
import json
from types import SimpleNamespace

import nbformat
import pytest
import yaml

from rmbook import book
from rmbook.book import reruns
from rmbook.cli import book as cli_book


def test_the_books_own_parameters_are_the_books_page_and_any_other_run_gets_a_folder_by_its_parameters():
    assert reruns.rerun_dir("heterogeneity") is None
    book_mode = book.chapter("heterogeneity").parameters(validate=False)["MODE"]
    assert reruns.rerun_dir("heterogeneity", overrides={"MODE": book_mode}) is None   # the same values: the book's
    a = reruns.rerun_dir("heterogeneity", overrides={"MODE": "compute", "MODELS": ["tiny-llama"]})
    again = reruns.rerun_dir("heterogeneity", overrides={"MODELS": ["tiny-llama"], "MODE": "compute"})
    other = reruns.rerun_dir("heterogeneity", overrides={"MODE": "compute", "MODELS": ["tiny-gemma2"]})
    assert a == again and a != other and a.parent == reruns.RERUNS and a.name.startswith("heterogeneity-")
    assert reruns.rerun_dir("heterogeneity", tiny=True) not in (None, a)


def test_a_parameter_file_counts_by_its_values_not_its_name(tmp_path):
    f, g = tmp_path / "a.yaml", tmp_path / "b.yaml"
    f.write_text("MODE: compute\nMODELS: [tiny-llama]\n")
    g.write_text("MODELS: [tiny-llama]\nMODE: compute\n")
    assert reruns.rerun_dir("heterogeneity", params_file=f) == reruns.rerun_dir("heterogeneity", params_file=g) == \
        reruns.rerun_dir("heterogeneity", overrides={"MODE": "compute", "MODELS": ["tiny-llama"]})


def test_the_claims_page_is_not_rerun_apart_from_the_chapters_it_judges():
    with pytest.raises(book.BookError, match="judges the results of the book's own chapters"):
        reruns.rerun_dir("claims", overrides={"ALPHA": 0.01})
    assert reruns.rerun_dir("claims") is None


def test_changed_parameters_are_those_that_differ_from_the_books_run():
    assert reruns.changed_parameters("heterogeneity", overrides={"MODE": "compute", "MODELS": ["a"]}) == \
        {"MODE": "compute", "MODELS": ["a"]}
    assert reruns.changed_parameters("heterogeneity") == {}


def test_the_toc_lists_the_reruns_last_and_is_left_alone_without_any(tmp_path):
    toc = yaml.safe_load((book.ROOT / "_toc.yml").read_text())
    assert reruns.toc_with_reruns(toc, tmp_path) is None and reruns.write_toc(tmp_path, tmp_path) is None
    for key in ("heterogeneity-0a1b2c3d", "big_two-99999999"):
        page = tmp_path / "book" / "_executed" / "reruns" / key / f"{key.split('-')[0]}.ipynb"
        page.parent.mkdir(parents=True)
        page.write_text("{}")
        page.with_suffix(".stamp").write_text("{}")  # it ran to the end
    (tmp_path / "book" / "_executed" / "reruns" / "heterogeneity-0a1b2c3d" / "stray.ipynb").write_text("{}")
    full = reruns.toc_with_reruns(toc, tmp_path)
    assert full["parts"][:-1] == toc["parts"] and full["root"] == toc["root"]
    assert full["parts"][-1] == {"caption": "Your reruns", "chapters": [
        {"file": "book/_executed/reruns/big_two-99999999/big_two"},
        {"file": "book/_executed/reruns/heterogeneity-0a1b2c3d/heterogeneity"}]}


def test_a_rerun_that_failed_is_listed_apart_not_among_your_reruns(tmp_path):
    """#62: a rerun that stopped at an error (its page holds the traceback, and it has no stamp: no results) was
    listed under "Your reruns" beside those that ran to the end."""
    toc = yaml.safe_load((book.ROOT / "_toc.yml").read_text())
    folder = tmp_path / "book" / "_executed" / "reruns"
    for key, finished in (("heterogeneity-0a1b2c3d", True), ("framing-12345678", False)):
        page = folder / key / f"{key.split('-')[0]}.ipynb"
        page.parent.mkdir(parents=True)
        page.write_text("{}")
        if finished:
            page.with_suffix(".stamp").write_text("{}")
    parts = reruns.toc_with_reruns(toc, tmp_path)["parts"]
    assert parts[-2] == {"caption": "Your reruns", "chapters": [
        {"file": "book/_executed/reruns/heterogeneity-0a1b2c3d/heterogeneity"}]}
    assert parts[-1] == {"caption": reruns.FAILED_PART, "chapters": [
        {"file": "book/_executed/reruns/framing-12345678/framing"}]}
    assert "did not finish" in reruns.FAILED_PART
    (folder / "heterogeneity-0a1b2c3d" / "heterogeneity.stamp").unlink()  # failed reruns alone: no "Your reruns"
    assert [p["caption"] for p in reruns.toc_with_reruns(toc, tmp_path)["parts"][len(toc["parts"]):]] == \
        [reruns.FAILED_PART]


def test_a_rerun_page_opens_with_what_it_changed_once(tmp_path):
    path = tmp_path / "heterogeneity.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Heterogeneity\n\nIntro."),
                                                   nbformat.v4.new_code_cell("x = 1")]), str(path))
    for _ in range(2):   # the same rerun marked again keeps one note
        reruns.mark_rerun(path, "heterogeneity", {"MODE": "compute", "MODELS": ["local:/x/my-rm"]})
    cells = nbformat.read(str(path), as_version=4).cells
    assert [c.cell_type for c in cells] == ["markdown", "markdown", "code"] and cells[0].source.startswith("# Het")
    assert '`MODE = "compute"`, `MODELS = ["local:/x/my-rm"]`' in cells[1].source
    assert "{doc}`/book/_executed/heterogeneity`" in cells[1].source


def _run_args(names, **kw):
    return SimpleNamespace(names=names, tiny=False, params=None, parameter=None, force=False, estimate=False, **kw)


def test_rmlib_book_run_sends_a_rerun_to_its_own_folder_and_the_books_chapters_to_the_book(monkeypatch, capsys):
    calls = []

    def fake_run_chapters(names, **kw):
        calls.append((names, kw.get("output_dir")))
        out = (kw.get("output_dir") or book.EXECUTED) / f"{(names or ['all'])[0]}.ipynb"
        return [book.RunResult((names or ["all"])[0], out, False, 0.0, {})]

    monkeypatch.setattr(cli_book, "run_chapters", fake_run_chapters)
    assert cli_book._run(_run_args(["heterogeneity"])) == 0
    assert calls[-1] == (["heterogeneity"], None)
    assert "_build/html/book/_executed/heterogeneity.html" in capsys.readouterr().out
    args = _run_args(["heterogeneity"])
    args.parameter = [["MODE", "compute"]]
    assert cli_book._run(args) == 0
    assert calls[-1] == (["heterogeneity"], reruns.rerun_dir("heterogeneity", overrides={"MODE": "compute"}))
    out = capsys.readouterr().out
    assert "the book's own page is unchanged" in out and "book/_executed/reruns/heterogeneity-" in out
    with pytest.raises(book.BookError, match="name the chapters to rerun"):
        cli_book._run(SimpleNamespace(names=[], tiny=False, params=None, parameter=[["MODE", "compute"]], force=False,
                                      estimate=False))


def test_the_html_build_is_given_the_toc_with_the_reruns(tmp_path, monkeypatch):
    import subprocess

    from rmbook.book import html

    root = tmp_path / "root"
    (root / "book" / "_static" / "vendor").mkdir(parents=True)
    for f in html.VENDOR_FILES:
        (root / "book" / "_static" / "vendor" / f).parent.mkdir(parents=True, exist_ok=True)
        (root / "book" / "_static" / "vendor" / f).write_text("x")
    (root / "_config.yml").write_text("title: t\n")
    (root / "_toc.yml").write_text(yaml.safe_dump({"format": "jb-book", "root": "book/intro", "parts": []}))
    page = root / "book" / "_executed" / "reruns" / "heterogeneity-0a1b2c3d" / "heterogeneity.ipynb"
    page.parent.mkdir(parents=True)
    page.write_text(json.dumps({}))
    page.with_suffix(".stamp").write_text(json.dumps({"page": hashlib.sha256(page.read_bytes()).hexdigest()}))
    seen = []

    def fake_run(cmd, **kw):
        seen.append(cmd)
        (tmp_path / "out" / "_build" / "html").mkdir(parents=True, exist_ok=True)
        return SimpleNamespace(returncode=0, stdout="", stderr="")

    monkeypatch.setattr(subprocess, "run", fake_run)
    html.build_html(root, tmp_path / "out", force=True)
    cmd = seen[-1]
    toc = yaml.safe_load((tmp_path / "out" / "_build" / "_toc_with_reruns.yml").read_text())
    assert cmd[cmd.index("--toc") + 1] == str(tmp_path / "out" / "_build" / "_toc_with_reruns.yml")
    assert toc["parts"][-1]["chapters"] == [{"file": "book/_executed/reruns/heterogeneity-0a1b2c3d/heterogeneity"}]


def test_rmlib_book_run_estimate_asks_for_an_estimate_of_the_whole_book_and_runs_nothing(monkeypatch):
    calls = []
    monkeypatch.setattr(cli_book, "run_chapters", lambda names, **kw: calls.append((names, kw)) or [])
    args = SimpleNamespace(names=[], tiny=False, params=None, parameter=None, force=False, estimate=True)
    assert cli_book._run(args) == 0
    assert len(calls) == 1 and calls[0][0] is None and calls[0][1]["estimate_only"] is True
