"""#62 wrong number 4: an interrupted `make book` left book/_executed/finetuning.ipynb half run, and the next
`rmlib book html` published it with its raw parameters cell and no results. The HTML build now leaves out every
executed page without a stamp that describes it, and says which and why."""
from __future__ import annotations

import json

from rmbook.book import html, stamps

TOC = {"format": "jb-book", "root": "book/intro",
       "parts": [{"caption": "A", "chapters": [{"file": "book/_executed/about"}, {"file": "book/glossary"}]},
                 {"caption": "B", "chapters": [{"file": "book/_executed/finetuning"}]}]}


def _page(folder, name, stamped: bool):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.ipynb").write_text(json.dumps({"cells": [], "name": name}))
    if stamped:
        stamp = stamps.new_stamp({"source": {}}, None, {}, 1.0, page=folder / f"{name}.ipynb")
        stamps.stamp_path(name, folder).write_text(json.dumps(stamp))


def test_an_unfinished_page_is_left_out_of_the_toc_with_its_reason(tmp_path):
    executed = tmp_path / "book" / "_executed"
    _page(executed, "about", stamped=True)
    _page(executed, "finetuning", stamped=False)  # stopped during fine-tuning: a page, no stamp
    assert html.unfinished_pages(TOC, tmp_path) == {
        "book/_executed/finetuning": "its last run failed or did not finish (no stamp)"}
    kept = html.without_pages(TOC, {"book/_executed/finetuning"})
    assert kept["parts"] == [TOC["parts"][0]]  # the part left empty goes too; pages that are not executed stay
    (executed / "about.ipynb").write_text(json.dumps({"cells": [{"half": True}]}))  # rewritten after its run
    assert "not the one its run wrote" in html.unfinished_pages(TOC, tmp_path)["book/_executed/about"]


def test_build_html_names_what_it_left_out(tmp_path, monkeypatch):
    import yaml

    (tmp_path / "_toc.yml").write_text(yaml.safe_dump(TOC))
    executed = tmp_path / "book" / "_executed"
    _page(executed, "about", stamped=True)
    _page(executed, "finetuning", stamped=False)
    lines = []
    toc = html._finished_toc(tmp_path, tmp_path, lines.append)
    assert lines == ["[book] left out of the HTML: book/_executed/finetuning (its last run failed or did not finish "
                     "(no stamp)); `make book` runs it"]
    files = html._toc_files(yaml.safe_load(toc.read_text()))
    assert "book/_executed/finetuning" not in files and "book/_executed/about" in files


def test_a_page_being_executed_is_never_read_by_sphinx():
    """A build beside a run (the tests' two workers) published `.finetuning.<pid>.running.html`, the half page the
    runner was writing: sphinx-external-toc's only_build_toc_files lists no hidden file, so it was not excluded."""
    import yaml
    from sphinx.util.matching import Matcher

    from rmbook.book import ROOT

    patterns = yaml.safe_load((ROOT / "_config.yml").read_text())["exclude_patterns"]
    assert Matcher(patterns)("book/_executed/.finetuning.21679.running.ipynb")
    assert Matcher(patterns)("book/_executed/reruns/framing-0a1b2c3d/.framing.7.running.ipynb")
    assert not Matcher(patterns)("book/_executed/finetuning.ipynb")
