"""rmlib.storage.records: a typed record stored as strict JSON with its schema tag and the sha256 of its content,
served only when both check out, in rmlib's own words (it knows no chapter: the book's results are such records,
rmbook.results, tested in tests/unit/test_results.py); and files written before the book's results left rmlib (#64
item 4) still verify and read."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
import pytest

from rmlib import storage
from rmlib.storage import (JsonData, Num, Record, RecordError, Section, StoredRecord, Table, read_record, record_problem,
                           write_record)
from rmbook.results import ChapterResults, read_results, results_problem

OLD_FILES = Path(__file__).parent / "old_files"  # written by rmlib.storage.results at 9e10439, before the move


class Row(Record):
    k: int


class Part(Section):
    x: Num


class OldFormat(ChapterResults):
    """The type old_files/old_format.json was written with (a ChapterResults of rmlib.storage.results then)."""
    CHAPTERS = ("old_format",)
    mode: Literal["published", "compute"]
    a: Num
    b: Num
    rows: list[Row]
    part: Part
    table: Table
    shown: JsonData = None


def old_format() -> OldFormat:
    return OldFormat(mode="published", a=np.float32(1.5), b=float("nan"), part=Part(x=0.125),
                     rows=pd.DataFrame({"k": [1, 2], "extra": [0.5, np.nan]}), table=pd.DataFrame({"v": [np.inf, 2.0]}),
                     shown={"arr": np.array([True, False]), "s": "é"})


class Note(StoredRecord):
    n: int


def test_results_written_before_the_move_verify_read_and_are_written_byte_for_byte_again(tmp_path):
    """#64 item 4 moved ChapterResults to rmbook: the file format (schema tag, sha256 field, the hash over the same
    canonical JSON) must not change, or every results file in book/_executed/results would be refused and rerun."""
    assert record_problem(OLD_FILES / "old_format.json") is None
    assert results_problem("old_format", OLD_FILES) is None
    back = read_results("old_format", OLD_FILES, OldFormat)
    assert back == old_format() and back.rows[1].extra is None and back.shown == {"arr": [True, False], "s": "é"}
    assert read_record(OLD_FILES / "old_format.json", OldFormat) == back
    written = write_record(old_format(), tmp_path / "old_format.json")
    assert written.read_bytes() == (OLD_FILES / "old_format.json").read_bytes()


def test_a_record_round_trips_and_a_damaged_one_is_refused_in_rmlibs_own_words(tmp_path):
    path = write_record(Note(n=1), tmp_path / "sub" / "note.json")
    data = json.loads(path.read_text())
    assert list(data)[:2] == ["schema", "sha256"] and data["schema"] == {"type": "Note", "version": 1}
    assert read_record(path, Note) == Note(n=1) and read_record(path)["n"] == 1 and record_problem(path) is None
    path.write_text(path.read_text().replace('"n": 1', '"n": 2'))
    with pytest.raises(RecordError, match="changed after its writer wrote it.*make it again with what wrote it"):
        read_record(path, Note)
    said = record_problem(path, remake="run `make-notes`", writer="`make-notes`")
    assert "changed after `make-notes` wrote it" in said and said.endswith("run `make-notes`")
    assert "chapter" not in said and "book" not in said
    with pytest.raises(TypeError, match="StoredRecord"):
        write_record({"n": 1}, tmp_path / "x.json")
    with pytest.raises(RecordError, match="does not exist"):
        read_record(tmp_path / "absent.json", Note)
    assert "is missing" in record_problem(tmp_path / "absent.json")


def test_rmlib_carries_no_chapter_concept():
    """#64 item 4: the book's concept of a chapter's results left rmlib: rmlib.storage has none of its names and
    imports without the book (test_architecture's layer test refuses any rmlib module that imports rmbook)."""
    for name in ("ChapterResults", "write_results", "read_results", "results_problem", "results_path", "ResultsError"):
        assert not hasattr(storage, name), name
    code = "import sys, rmlib.storage; print(sorted(m for m in sys.modules if m.split('.')[0] == 'rmbook'))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"
