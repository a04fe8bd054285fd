"""rmbook.book.stamps: the claims page runs after what it reads and reruns when their results change."""
from __future__ import annotations

import json

import pytest

from rmbook import book


def test_claims_runs_after_what_it_reads_and_reruns_when_results_change(tmp_path):
    from rmbook.chapters.claims import analysis as claims

    sources = book.reads_results("claims")
    assert sources == claims.source_chapters()
    toc = book.chapters()
    assert toc.index("claims") < toc.index("heterogeneity")  # first in the findings, in the table of contents
    order = book.in_run_order(toc)
    assert sorted(order) == sorted(toc) and order.index("claims") > max(order.index(s) for s in sources)
    out = tmp_path / "executed"
    res = book.results_dir(out)
    res.mkdir(parents=True)
    params = book.with_results_dir("claims", {}, out)
    with pytest.raises(book.BookError, match="reads the results of"):
        book.run_chapter("claims", output_dir=out, log=lambda *_: None)
    for s in sources:
        (res / f"{s}.json").write_text('{"x": 1}')
    (out / "claims.ipynb").write_text("{}")  # as if the page had run with these results
    from rmlib.storage.records import HASH_FIELD, _digest

    own = {"x": 1}
    (res / "claims.json").write_text(json.dumps({**own, HASH_FIELD: _digest(own)}))  # as write_results writes it
    book.stamp_path("claims", out).write_text(json.dumps(
        book.new_stamp(book.dependencies("claims", params), None, params, 1.0, page=out / "claims.ipynb")))
    assert book.stale_reason("claims", params, out) is None
    (res / "claims.json").write_text(json.dumps({"x": 2, HASH_FIELD: _digest(own)}))  # a number changed by hand
    assert "changed after chapter 'claims' wrote it" in book.stale_reason("claims", params, out)
    # #62: a number edited to 1e999 stopped `rmlib book run` with "Out of range float values are not JSON
    # compliant", naming no file; the chapter is now stale, and the reason names the file and the chapter
    (res / "claims.json").write_text('{"x": 1e999, "%s": "%s"}' % (HASH_FIELD, _digest(own)))
    why = book.stale_reason("claims", params, out)
    assert str(res / "claims.json") in why and "not finite" in why and "rerun chapter 'claims'" in why
    (res / "claims.json").write_text(json.dumps({**own, HASH_FIELD: _digest(own)}))
    (res / "framing.json").write_text('{"x": 2}')
    assert book.stale_reason("claims", params, out) == "results changed: framing"
    (res / "claims.json").unlink()  # a chapter whose own results vanished must run again
    assert "results file" in book.stale_reason("claims", params, out)


def test_editing_a_project_data_file_makes_a_chapter_stale(tmp_path, monkeypatch):
    """The blinding decisions live in data/blinding.yaml, not in rmlib: the stamp must still see an edit to them,
    and must not see the fetched research data under data/external."""
    from rmbook.book import stamps

    data = tmp_path / "data"
    (data / "external").mkdir(parents=True)
    original = (stamps.PROJECT_DATA / "blinding.yaml").read_text()
    (data / "blinding.yaml").write_text(original)
    monkeypatch.setattr(stamps, "PROJECT_DATA", data)
    out = tmp_path / "executed"
    out.mkdir()
    (out / "blinding.ipynb").write_text("{}")
    stamps.stamp_path("blinding", out).write_text(json.dumps(
        stamps.new_stamp(stamps.dependencies("blinding", {}), None, {}, 1.0, page=out / "blinding.ipynb")))
    assert stamps.stale_reason("blinding", {}, out) is None
    (data / "external" / "fetched.yaml").write_text("research data: not the project's own\n")
    assert stamps.stale_reason("blinding", {}, out) is None
    (data / "blinding.yaml").write_text(original.replace("Answer with Yes or No.", "Yes or no?"))
    assert stamps.stale_reason("blinding", {}, out) == "project data changed: data/blinding.yaml"


def test_editing_a_prose_template_makes_a_chapter_stale(tmp_path, monkeypatch):
    """A chapter's sentences come from ``report/prose/templates/*.md.j2``, rendered while it runs: a stamp that
    hashed only ``.py`` and ``.yaml`` files served the old sentences after a template was edited."""
    from rmbook.book import stamps

    src = tmp_path / "src"
    (src / "rmbook" / "chapters" / "framing").mkdir(parents=True)
    (src / "rmbook" / "__init__.py").write_text("")
    template = src / "rmbook" / "chapters" / "framing" / "prose.md.j2"
    template.write_text("{% macro level(s) %}Old sentence.{% endmacro %}\n")
    monkeypatch.setattr(stamps, "SOURCE_ROOT", src)
    assert template in stamps.source_files()
    out = tmp_path / "executed"
    out.mkdir()
    params = {}  # no RESULTS_DIR: the stamp alone decides
    (out / "framing.ipynb").write_text("{}")
    book.stamp_path("framing", out).write_text(json.dumps(
        book.new_stamp(book.dependencies("framing", params), None, params, 1.0, page=out / "framing.ipynb")))
    assert book.stale_reason("framing", params, out) is None
    template.write_text("{% macro level(s) %}New sentence.{% endmacro %}\n")
    assert book.stale_reason("framing", params, out) == "source changed: rmbook/chapters/framing/prose.md.j2"
