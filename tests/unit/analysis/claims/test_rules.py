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


def test_share_rule_with_every_unit_unclear_is_not_established_not_fails():
    # defect 11 of #25: share_outcome(0, n, against=0) said "fails" when no unit was clear either way
    assert claims.share_outcome(0, 10, against=0) == "not established"
    assert claims.share_outcome(0, 2, against=0) == "not established"


def test_test_rule_separates_not_established_from_fails():
    assert claims.test_outcome(0.01, True) == "holds"
    assert claims.test_outcome(0.01, False) == "fails"  # significant, but the other way round
    assert claims.test_outcome(0.2, True) == "not established"  # the right way, chance not excluded
    assert claims.test_outcome(0.2, False) == "not established"  # the interval spans the null either way
    assert claims.test_outcome(None, True) == "untestable"
    # a test that can never pass at this size gives "not established" whatever p says
    assert claims.test_outcome(0.01, True, floor=0.095) == "not established"


def test_attainable_p_of_four_against_six_models():
    floor = claims.exact_two_group_floor(4, 6)
    assert floor == 2 / 210
    assert claims.bh_floor(floor, 10) > claims.ALPHA        # one MFD2 panel of 10 can never pass
    assert claims.bh_floor(floor, 10, k=2) < claims.ALPHA   # two at the floor could
    with pytest.raises(ValueError):
        claims.bh_floor(floor, 10, k=11)


def test_interval_rule_puts_the_burden_on_both_sides_alike():
    assert claims.interval_outcome(0.02, 0.2, claimed="above") == "holds"
    assert claims.interval_outcome(-0.2, -0.02, claimed="above") == "fails"
    assert claims.interval_outcome(-0.1, 0.1, claimed="above") == "not established"
    assert claims.interval_outcome(-0.1, 0.1, claimed="below") == "not established"  # the same width, either way
    assert claims.interval_outcome(-0.2, -0.02, claimed="below") == "holds"


def test_equivalence_rule_needs_its_margin():
    assert claims.equivalence_outcome(-0.03, 0.04, 0.05) == "holds"
    assert claims.equivalence_outcome(-0.2, 0.1, 0.05) == "not established"    # too wide to call comparable
    assert claims.equivalence_outcome(-0.2, -0.08, 0.05) == "fails"
    assert claims.equivalence_outcome(-0.02, 0.3, 0.05, better_ok=True) == "holds"
    with pytest.raises(ValueError, match="margin"):
        claims.equivalence_outcome(-0.1, 0.1, 0)


def test_existence_order_and_threshold_rules():
    assert claims.exists_outcome(1) == "holds" and claims.exists_outcome(0) == "not established"
    assert claims.order_outcome(1, 3) == "holds" and claims.order_outcome(3, 1) == "fails"
    assert claims.threshold_outcome(0.4, claims.TAU_HETEROGENEOUS) == "holds"
    assert claims.threshold_outcome(0.7, claims.TAU_HETEROGENEOUS) == "fails"


@pytest.mark.parametrize("outcomes, expected", [
    (["holds", "holds"], "replicates"),
    (["holds", "fails"], "partly"),
    (["holds", "mixed"], "partly"),
    (["holds", "not established"], "partly"),
    (["fails", "fails"], "does not"),
    (["fails", "untestable"], "does not"),
    (["not established", "not established"], "not established"),
    (["not established", "fails"], "not established"),
    (["mixed", "not established"], "partly"),
    (["holds", "untestable"], "partly"),
    (["untestable", "untestable"], "not testable here"),
])
def test_verdict_from_parts(outcomes, expected):
    parts = [Part(f"p{i}", o, "e") for i, o in enumerate(outcomes)]
    assert verdict(parts)[0] == expected


def test_every_outcome_and_verdict_is_explained_on_the_page():
    from rmlib.report import prose

    text = prose.render("claims", "rules", s=claims.rules_fields())
    for word in (*claims.OUTCOMES[:-1], *claims.VERDICTS):
        assert word in text, word
    assert f"{claims.ALPHA}" in text and f"{claims.MOST:.0%}" in text


def test_a_parts_note_reaches_the_verdicts_reason():
    from .conftest import say

    parts = [Part("a", "holds", "e"), Part("b", "mixed", "e", note="lexicon-dependent: holds with WARRINER")]
    v, reason = verdict(parts)
    assert reason.kind == "reason" and v == "partly"
    assert say(reason.kind, reason.fields) == "a: holds; b: mixed (lexicon-dependent: holds with WARRINER)"


@pytest.mark.parametrize("parts, words", [
    ([Part("a", "untestable", "needs a GPU"), Part("b", "untestable", "no hub")], "a: needs a GPU; b: no hub"),
    ([Part("a", "holds", "e"), Part("b", "holds", "e")], "every part holds"),
    ([Part("a", "fails", "e"), Part("b", "untestable", "needs a GPU")], "a: fails (1 part(s) not testable here)"),
    ([Part("a", "not established", "e"), Part("b", "holds", "e", context=True)], "a: not established"),
])
def test_the_verdicts_reason_is_worded_by_the_claims_template(parts, words):
    """The reason is a Said (#26: sentences come from the templates only), worded as before the move."""
    from .conftest import say

    reason = verdict(parts)[1]
    assert say(reason.kind, reason.fields) == words


def test_context_parts_do_not_count():
    parts = [Part("paper's models", "untestable", "needs a GPU"), Part("stand-ins", "holds", "e", context=True)]
    assert verdict(parts)[0] == "not testable here"
    with pytest.raises(ValueError, match="outcome"):
        Part("x", "maybe", "e")
