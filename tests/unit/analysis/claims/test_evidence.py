"""rmlib.analysis.claims.evidence: paths into results, provenance of every number, missing numbers."""
from __future__ import annotations

import pytest

from rmlib.analysis import claims
from rmlib.analysis.claims import Evidence, resolve, verdict


def test_paths_select_records_and_record_their_source():
    data = {"a": {"rows": [{"k": "x", "v": 1}, {"k": "y", "v": 2}]}, "n": 3, "list": [5, 6], "empty": None}
    assert resolve(data, "a.rows[k=y].v") == 2 and resolve(data, "list.1") == 6
    with pytest.raises(claims.Missing):
        resolve(data, "a.rows[k=z].v")
    e = Evidence({"ch": data, "gone": None}, {"gone": "chapter 'gone' has not run"})
    assert e.get("ch", "n") == 3
    assert e.take() == [claims.Ref("ch", "n", 3)] and e.refs == []
    with pytest.raises(claims.Missing, match="has not run"):
        e.get("gone", "n")
    with pytest.raises(claims.Missing, match="did not compute"):
        e.get("ch", "empty")


def test_a_claim_with_missing_numbers_is_untestable_not_false():
    e = Evidence({c: {} for c in claims.source_chapters()})
    table, parts = claims.claims_table(e)
    assert set(table["verdict"]) == {"not testable here"}
    assert all(p.outcome == "untestable" for ps in parts.values() for p in ps if not p.context)
