"""rmbook.book.html.sync_static: the built HTML gets the book's current static files even when Sphinx rebuilds no
page (Sphinx 7.4 then stops before it copies them, so an edit to rmlib.css alone never reached the pages)."""
from __future__ import annotations

from rmbook.book.html import sync_static


def test_a_changed_or_missing_static_file_is_copied_and_an_equal_one_is_left(tmp_path):
    source, dest = tmp_path / "book" / "_static", tmp_path / "html" / "_static"
    (source / "vendor").mkdir(parents=True)
    dest.mkdir(parents=True)
    (source / "rmlib.css").write_text("td { overflow-wrap: anywhere; }")
    (dest / "rmlib.css").write_text("td { overflow-wrap: break-word; }")  # the last build's, same size or not
    (source / "vendor" / "vega.js").write_text("vega")
    (source / "same.css").write_text("a {}")
    (dest / "same.css").write_text("a {}")
    copied = sync_static(source, dest)
    assert sorted(p.relative_to(dest).as_posix() for p in copied) == ["rmlib.css", "vendor/vega.js"]
    assert (dest / "rmlib.css").read_text() == "td { overflow-wrap: anywhere; }"
    assert (dest / "vendor" / "vega.js").read_text() == "vega"
    assert sync_static(source, dest) == []
