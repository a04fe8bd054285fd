"""rmlib.analysis.claims.rules: each outcome rule at its thresholds, and verdicts from parts."""
from __future__ import annotations

import pytest

from rmlib.analysis import claims
from rmlib.analysis.claims import Part, verdict


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
