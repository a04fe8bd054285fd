"""The API reference's generated pages survive a second build (rmbook.book.api_pages).

Jupyter Book's only_build_toc_files excluded the pages autosummary had written in an earlier build: a rebuild
without ``_build`` wrote 28 pages of a 300-page book, and an incremental one kept the first build's API pages."""
from __future__ import annotations

import shutil

import yaml

from rmbook import book


def _api_book(root):
    """A book of one landing page and an API reference of two modules, configured as the real book is."""
    book.write_vendor(log=lambda *_: None)  # npm pack once; cached in book/_static/vendor afterwards
    shutil.copy2(book.ROOT / "_config.yml", root / "_config.yml")
    (root / "_toc.yml").write_text(yaml.safe_dump({"format": "jb-book", "root": "book/intro",
                                                   "chapters": [{"file": "book/api"}]}))
    shutil.copytree(book.ROOT / "book" / "_static", root / "book" / "_static")
    (root / "book" / "intro.md").write_text("# A tiny book\n\nIts API reference follows.\n")
    (root / "book" / "api.md").write_text("# API\n\n```{eval-rst}\n.. autosummary::\n   :toctree: api\n\n"
                                          "   rmlib.errors\n   rmlib.lazy\n```\n")


def test_a_rebuild_keeps_the_api_pages_that_an_earlier_build_generated(tmp_path):
    _api_book(tmp_path)
    pages = ("book/api/rmlib.errors.html", "book/api/rmlib.lazy.html")
    html = book.build_html(tmp_path)
    assert all((html / p).is_file() for p in pages)
    assert (tmp_path / "book" / "api" / "rmlib.errors.rst").is_file()  # the generated stub stays in the source tree
    shutil.rmtree(tmp_path / "_build")  # a clean rebuild: the stubs are on disk before the configuration is read
    html = book.build_html(tmp_path)
    assert all((html / p).is_file() for p in pages), sorted(p.name for p in html.rglob("*.html"))
    assert 'href="api/rmlib.errors.html' in (html / "book" / "api.html").read_text()
