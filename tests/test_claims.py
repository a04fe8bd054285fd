"""The verdict rules of the claims page, and the evidence paths that tie every number to a chapter."""
from __future__ import annotations

import pytest

from rmlib.analysis import claims
from rmlib.analysis.claims import Evidence, Part, resolve, verdict


def test_share_rule_thresholds():
    assert claims.share_outcome(8, 10) == "holds" and claims.share_outcome(3, 4) == "holds"  # >= 75%
    assert claims.share_outcome(7, 10) == "mixed" and claims.share_outcome(5, 10) == "mixed"
    assert claims.share_outcome(4, 10) == "fails" and claims.share_outcome(0, 10) == "fails"
    assert claims.share_outcome(0, 0) == "untestable"
    # few units clear, none the other way: the direction holds but is not shown unit by unit
    assert claims.share_outcome(4, 10, against=0) == "mixed"
    assert claims.share_outcome(0, 10, against=9) == "fails" and claims.share_outcome(2, 10, against=2) == "fails"


def test_test_existence_order_and_threshold_rules():
    assert claims.test_outcome(0.01, True) == "holds"
    assert claims.test_outcome(0.01, False) == "fails"  # significant, but the other way round
    assert claims.test_outcome(0.2, True) == "fails" and claims.test_outcome(None, True) == "untestable"
    assert claims.exists_outcome(1) == "holds" and claims.exists_outcome(0) == "fails"
    assert claims.order_outcome(1, 3) == "holds" and claims.order_outcome(3, 1) == "fails"
    assert claims.threshold_outcome(0.4, claims.TAU_HETEROGENEOUS) == "holds"
    assert claims.threshold_outcome(0.7, claims.TAU_HETEROGENEOUS) == "fails"


@pytest.mark.parametrize("outcomes, expected", [
    (["holds", "holds"], "replicates"),
    (["holds", "fails"], "partly"),
    (["holds", "mixed"], "partly"),
    (["fails", "fails"], "does not"),
    (["fails", "untestable"], "does not"),
    (["holds", "untestable"], "partly"),
    (["untestable", "untestable"], "not testable here"),
])
def test_verdict_from_parts(outcomes, expected):
    parts = [Part(f"p{i}", o, "e") for i, o in enumerate(outcomes)]
    assert verdict(parts)[0] == expected


def test_context_parts_do_not_count():
    parts = [Part("paper's models", "untestable", "needs a GPU"), Part("stand-ins", "holds", "e", context=True)]
    assert verdict(parts)[0] == "not testable here"
    with pytest.raises(ValueError, match="outcome"):
        Part("x", "maybe", "e")


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


def test_planted_results_give_the_verdicts_the_rules_say():
    framing = {"main_source": "afinn",
               "halves_summary": {"pos_prompts": {"holds": 10, "reversed": 0, "n": 10},
                                  "neg_prompts": {"holds": 0, "reversed": 9, "n": 10}},
               "cell_counts_by_half": [{"half": "pos_prompts", "n_congruent_steeper": 540, "n_cells": 540},
                                       {"half": "neg_prompts", "n_congruent_steeper": 3, "n_cells": 540}]}
    e = Evidence({"framing": framing})
    claim = next(c for c in claims.CLAIMS if c.key == "framing")
    parts = claim.evaluate(e)
    assert [p.outcome for p in parts] == ["holds", "fails"]
    assert verdict(parts)[0] == "partly"  # opposite halves are reported as such, not as "no effect"
    assert {r.path for p in parts for r in p.refs} >= {"halves_summary.pos_prompts.holds",
                                                       "cell_counts_by_half[half=neg_prompts].n_cells"}


def test_every_claim_names_its_source_and_unit():
    for c in claims.CLAIMS:
        assert c.stated_in and c.unit and c.test and c.chapters and c.paper in (claims.FACCT, claims.ICLR)
    assert len({c.key for c in claims.CLAIMS}) == len(claims.CLAIMS)
