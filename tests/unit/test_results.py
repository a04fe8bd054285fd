"""rmbook.results: each chapter's typed results as strict JSON with a schema tag, written atomically, and refused
when the file is of another type, another version or from before results were typed, with the chapter to rerun (the
storage itself, rmlib.storage.records, is tested in tests/unit/storage/test_records.py)."""
from __future__ import annotations

import json
from typing import ClassVar, Literal

import numpy as np
import pandas as pd
import pytest

from rmbook import results
from rmbook.results import ChapterResults, ResultsError
from rmlib.storage import JsonData, Num, Record, Table


class Row(Record):
    k: int


class DemoResults(ChapterResults):
    CHAPTERS = ("demo",)
    mode: Literal["published", "compute"]
    a: Num
    b: Num
    rows: list[Row]
    table: Table
    shown: JsonData = None


class TwoChapters(ChapterResults):
    CHAPTERS = ("one", "two")
    n: int


def demo(**kw):
    base = dict(mode="published", a=np.float32(1.5), b=float("nan"), rows=pd.DataFrame({"k": [1, 2], "extra": [0.5, np.nan]}),
                table=pd.DataFrame({"v": [np.inf, 2.0]}), shown={"arr": np.array([True, False])})
    return DemoResults(**{**base, **kw})


def test_typed_results_are_strict_json_with_a_schema_tag(tmp_path):
    path = results.write_results(demo(), tmp_path)
    assert path == tmp_path / "demo.json" and sorted(p.name for p in tmp_path.iterdir()) == ["demo.json"]
    data = json.loads(path.read_text())
    assert data["schema"] == {"type": "DemoResults", "version": 1}
    assert data["a"] == 1.5 and data["b"] is None and data["table"] == [{"v": None}, {"v": 2.0}]
    assert data["rows"] == [{"k": 1, "extra": 0.5}, {"k": 2, "extra": None}] and data["shown"] == {"arr": [True, False]}
    back = results.read_results("demo", tmp_path, DemoResults)
    assert isinstance(back, DemoResults) and back.rows[0].k == 1 and back.b is None
    assert results.read_results("demo", tmp_path)["a"] == 1.5  # untyped read: the stored JSON
    assert results.write_results(demo(), None) is None


def test_bad_results_are_refused_when_built():
    with pytest.raises(ValueError):
        demo(mode="both")
    with pytest.raises(ValueError):
        demo(a="high")
    with pytest.raises(ValueError):
        DemoResults(**{**demo().model_dump(), "unknown_field": 1})
    with pytest.raises(TypeError, match="results type"):
        results.write_results({"a": 1}, "/tmp")


def test_a_type_serving_several_chapters_needs_the_name(tmp_path):
    with pytest.raises(ValueError, match="say which one"):
        results.write_results(TwoChapters(n=1), tmp_path)
    with pytest.raises(ValueError, match="not of chapter"):
        results.write_results(TwoChapters(n=1), tmp_path, chapter="three")
    results.write_results(TwoChapters(n=2), tmp_path, chapter="two")
    assert results.read_results("two", tmp_path, TwoChapters).n == 2


def _write(path, data: dict) -> None:
    """``data`` as a results file with a valid hash (a file of another shape that nothing damaged)."""
    from rmlib.storage.records import HASH_FIELD, _digest

    body = {k: v for k, v in data.items() if k != HASH_FIELD}
    path.write_text(json.dumps({**body, HASH_FIELD: _digest(body)}))


def test_old_foreign_and_damaged_files_are_refused_with_the_chapter_to_rerun(tmp_path):
    with pytest.raises(ResultsError, match="run it first"):
        results.read_results("missing", tmp_path, DemoResults)
    _write(tmp_path / "demo.json", {"mode": "published"})
    with pytest.raises(ResultsError, match="before its records were typed.*rerun chapter 'demo'"):
        results.read_results("demo", tmp_path, DemoResults)
    results.write_results(TwoChapters(n=1), tmp_path, chapter="one")
    (tmp_path / "demo.json").write_text((tmp_path / "one.json").read_text())
    with pytest.raises(ResultsError, match="holds TwoChapters v1, not DemoResults v1"):
        results.read_results("demo", tmp_path, DemoResults)
    data = json.loads(results.write_results(demo(), tmp_path).read_text())
    _write(tmp_path / "demo.json", {**data, "schema": {"type": "DemoResults", "version": 0}})
    with pytest.raises(ResultsError, match="v0, not DemoResults v1"):
        results.read_results("demo", tmp_path, DemoResults)
    _write(tmp_path / "demo.json", {**data, "a": "high"})
    with pytest.raises(ResultsError, match="does not fit DemoResults.*'a'"):
        results.read_results("demo", tmp_path, DemoResults)
    (tmp_path / "demo.json").write_text("{not json")
    with pytest.raises(ResultsError, match="not valid JSON"):
        results.read_results("demo", tmp_path, DemoResults)


def test_a_changed_number_is_refused_on_read_and_makes_the_chapter_stale(tmp_path):
    """#39 item 3: a results file had no hash, so one changed digit in distributions.json was served by read_results,
    the chapter was called current and the claims page read the wrong number. Every file now carries the sha256 of
    its content; a changed, unhashed or missing file is refused and names the chapter to rerun."""
    from rmlib.storage.records import HASH_FIELD

    path = results.write_results(demo(a=0.25), tmp_path)
    assert results.results_problem("demo", tmp_path) is None
    text = path.read_text()
    assert '"a": 0.25' in text and json.loads(text)[HASH_FIELD]
    path.write_text(text.replace('"a": 0.25', '"a": 0.35'))  # one digit
    for read in (lambda: results.read_results("demo", tmp_path, DemoResults),
                 lambda: results.read_results("demo", tmp_path)):
        with pytest.raises(ResultsError, match="changed after chapter 'demo' wrote it.*rerun chapter 'demo'"):
            read()
    assert "changed after chapter 'demo' wrote it" in results.results_problem("demo", tmp_path)
    unhashed = json.loads(text)
    del unhashed[HASH_FIELD]
    path.write_text(json.dumps(unhashed))
    assert "has no sha256" in results.results_problem("demo", tmp_path)
    path.unlink()
    assert "is missing" in results.results_problem("demo", tmp_path)


@pytest.mark.parametrize("number", ["1e999", "NaN", "-Infinity"])
def test_a_non_finite_number_edited_into_a_results_file_is_named_with_the_chapter_to_rerun(tmp_path, number):
    """#62: a number edited to 1e999 or NaN made read_results and results_problem raise a bare ValueError ("Out of
    range float values are not JSON compliant"), naming no file. No results file is written with one."""
    path = results.write_results(demo(a=0.25), tmp_path)
    path.write_text(path.read_text().replace('"a": 0.25', f'"a": {number}'))
    for read in (lambda: results.read_results("demo", tmp_path, DemoResults),
                 lambda: results.read_results("demo", tmp_path)):
        with pytest.raises(ResultsError, match="not finite.*edited or damaged.*rerun chapter 'demo'") as e:
            read()
        assert str(path) in str(e.value)
    problem = results.results_problem("demo", tmp_path)
    assert str(path) in problem and "edited or damaged" in problem


class MadeElsewhere(ChapterResults):
    """A file that no chapter writes (like `rmlib card`'s card.json): it says how it is made again."""
    CHAPTERS = ("elsewhere",)
    WRITTEN_BY: ClassVar[str] = "`make-elsewhere`"
    REMAKE: ClassVar[str] = "make it again (`make-elsewhere`)"
    n: int


def test_a_file_that_no_chapter_writes_names_how_it_is_made_not_a_chapter(tmp_path):
    """#62: a damaged card.json said "rerun chapter 'card' (`rmlib book run card`)", a chapter that does not exist.
    A results type that is not a chapter's says how its file is made again, in every refusal."""
    path = tmp_path / "elsewhere.json"
    results.write_results(TwoChapters(n=1), tmp_path, chapter="one")
    good = results.write_results(MadeElsewhere(n=1), tmp_path).read_text()
    cases = {"garbage": "\x00\x01garbage", "truncated": good[:40], "empty": "", "a list": "[1, 2]",
             "no hash": json.dumps({"n": 1}), "foreign": (tmp_path / "one.json").read_text(),
             "edited": good.replace('"n": 1', '"n": 2')}
    for case, text in cases.items():
        path.write_text(text)
        for problem in (lambda: results.read_results("elsewhere", tmp_path, MadeElsewhere),
                        lambda: results.results_problem("elsewhere", tmp_path, MadeElsewhere)):
            try:
                message = problem()
            except ResultsError as e:
                message = str(e)
            if message is None and case == "foreign":  # intact as a file: only its type tells it apart
                continue
            assert "make it again (`make-elsewhere`)" in message and "chapter 'elsewhere'" not in message, case
    path.unlink()
    with pytest.raises(ResultsError, match="make it again") as e:
        results.read_results("elsewhere", tmp_path, MadeElsewhere)
    assert "rmlib book run" not in str(e.value)
