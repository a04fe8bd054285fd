"""rmbook.analysis.claims.rules: each outcome rule at its thresholds, and verdicts from parts."""
from __future__ import annotations

import pytest

from rmbook.chapters.claims import analysis as claims
from rmbook.chapters.claims.analysis import Part, verdict


def test_share_rule_thresholds():
    assert claims.share_outcome(8, 10, against=2) == "holds" and claims.share_outcome(3, 4, against=0) == "holds"
    assert claims.share_outcome(7, 10, against=3) == "mixed" and claims.share_outcome(5, 10, against=5) == "mixed"
    assert claims.share_outcome(2, 10, against=8) == "fails" and claims.share_outcome(0, 4, against=3) == "fails"
    assert claims.share_outcome(0, 0, against=0) == "untestable"
    # few units clear, none the other way: the direction holds but is not shown unit by unit
    assert claims.share_outcome(4, 10, against=0) == "mixed"
    with pytest.raises(TypeError):
        claims.share_outcome(4, 10)  # every caller says how many units are against (#38 item 2)
    with pytest.raises(ValueError, match="negative"):
        claims.share_outcome(4, 10, against=-1)
    # #63 item 7: more units for and against than there are units was accepted
    with pytest.raises(ValueError, match="more than"):
        claims.share_outcome(8, 10, against=3)


def test_share_rule_fails_only_by_the_bar_that_makes_it_hold():
    """#38 item 1: 'fails' needed only fewer than half for and as many against. One unit against and nine unclear
    was 'fails', and so were four for and four against."""
    assert claims.share_outcome(0, 10, against=1) == "mixed"
    assert claims.share_outcome(4, 10, against=4) == "mixed"
    assert claims.share_outcome(2, 10, against=2) == "mixed"
    assert claims.share_outcome(0, 10, against=7) == "mixed"  # 70% against is short of the bar, as 70% for is
    assert claims.share_outcome(0, 10, against=8) == "fails"


def test_units_that_are_merely_not_significant_are_unclear_not_against():
    """#38 item 2: 0 of 4 prompts significant read 'fails' because against defaulted to n - k."""
    assert claims.share_outcome(0, 4, against=0) == "not established"


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
    # a test that can never pass at this size gives "not established" whatever p says, either way round
    assert claims.test_outcome(0.01, True, floor=0.095) == "not established"
    assert claims.test_outcome(0.01, False, floor=0.095) == "not established"


def test_a_monte_carlo_p_within_two_standard_errors_of_alpha_decides_nothing():
    """#38 item 8: heterogeneity's partial Mantel p was 0.0504 from 9,999 permutations (SE 0.0022), near the 0.0492
    that all 10! relabellings give one-sided (#63 item 8: the page's two-sided p is another number). A Monte Carlo p
    whose interval p ± 2 SE straddles alpha is not established, either way; an exact p is taken as it is."""
    se = (0.05 * 0.95 / 9999) ** 0.5
    assert claims.monte_carlo_straddles(0.0504, se) and claims.monte_carlo_straddles(0.0492, se)
    assert claims.test_outcome(0.0492, True, se=se) == "not established"
    assert claims.test_outcome(0.0492, False, se=se) == "not established"
    assert claims.test_outcome(0.0492, True, se=0.0) == "holds"  # exact
    assert claims.test_outcome(0.0492, True) == "holds"
    assert claims.test_outcome(0.01, True, se=se) == "holds" and claims.test_outcome(0.2, True, se=se) == (
        "not established")


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
    assert claims.order_outcome(2, 2) == "not established"  # a tie is its own mirror
    assert claims.threshold_outcome(0.4, claims.TAU_HETEROGENEOUS) == "holds"
    assert claims.threshold_outcome(0.7, claims.TAU_HETEROGENEOUS) == "fails"
    assert claims.threshold_outcome(claims.TAU_HETEROGENEOUS, claims.TAU_HETEROGENEOUS) == "not established"


def test_a_single_number_next_to_its_threshold_is_too_close_to_call():
    """#63 item 6: median τ 0.599 held and 0.601 failed; ranks one apart decided an order. Within the stated band
    both read "not established", and the band is the same on either side."""
    tau, band = claims.TAU_HETEROGENEOUS, claims.TAU_BAND
    assert claims.threshold_outcome(0.599, tau, band=band) == claims.threshold_outcome(0.601, tau, band=band) == (
        "not established")
    assert claims.threshold_outcome(tau - 1.5 * band, tau, band=band) == "holds"
    assert claims.threshold_outcome(tau + 1.5 * band, tau, band=band) == "fails"
    assert claims.order_outcome(3, 4, band=claims.rank_band(263)) == "not established"
    assert claims.order_outcome(3, 40, band=claims.rank_band(263)) == "holds"
    assert claims.rank_band(263) >= 1 and claims.rank_band(10) == 1
    text = " ".join(claims.rules_fields().keys())
    assert "tau_band" in text and "rank_band_share" in text


@pytest.mark.parametrize("outcomes, expected", [
    (["holds", "holds"], "replicates"),
    (["holds", "fails"], "partly"),
    (["holds", "mixed"], "partly"),
    (["holds", "not established"], "partly"),
    (["fails", "fails"], "does not"),
    (["fails", "untestable"], "partly"),  # #38 item 3: untestable parts count alike on both sides
    (["holds", "untestable"], "partly"),
    (["not established", "not established"], "not established"),
    (["not established", "fails"], "partly"),  # #38 item 4: a failing part is never hidden
    (["not established", "holds"], "partly"),
    (["not established", "untestable"], "not established"),
    (["mixed", "not established"], "partly"),
    (["untestable", "untestable"], "not testable here"),
])
def test_verdict_from_parts(outcomes, expected):
    parts = [Part(f"p{i}", o, "e") for i, o in enumerate(outcomes)]
    assert verdict(parts)[0] == expected


@pytest.mark.parametrize("outcomes, lean", [
    (["holds", "not established"], "for"), (["holds", "untestable"], "for"), (["holds", "mixed"], "for"),
    (["fails", "not established"], "against"), (["fails", "untestable"], "against"), (["fails", "mixed"], "against"),
    (["holds", "fails"], "both ways"), (["mixed", "not established"], "both ways"),
])
def test_a_partly_verdict_says_which_way_it_leans(outcomes, lean):
    """#63 item 3: "fails + not established" and "holds + not established" were both "partly", so improving the
    failing part to "not established" turned "partly" into "not established", and "N partly" read as partial
    replication. The lean is shown with the verdict."""
    parts = [Part(f"p{i}", o, "e") for i, o in enumerate(outcomes)]
    assert verdict(parts)[0] == "partly" and claims.partly_lean(parts) == lean
    assert claims.verdict_shown("partly", lean) == f"partly ({lean})"
    assert claims.verdict_shown("replicates", "") == "replicates"


def test_every_outcome_and_verdict_is_explained_on_the_page():
    from rmbook.report import prose

    text = prose.render("claims", "rules", s=claims.rules_fields())
    for word in (*claims.OUTCOMES[:-1], *claims.VERDICTS):
        assert word in text, word
    assert f"{claims.ALPHA}" in text and f"{claims.MOST:.0%}" in text
    flat = " ".join(text.split())
    assert "Every test on this page is two-sided" in flat and "none is one-sided" in flat
    # #63 item 7: "two-sided" was never defined, and for skewed nulls its two readings differ (0.098 vs 0.071)
    assert "twice the smaller one-sided tail" in flat and "|statistic| ≥ |observed|" in flat
    # #38 item 9: "not established" was said to mean "the direction is as claimed", also for estimates the other way
    assert "the direction is as claimed" not in flat and "whichever way its estimate points" in flat


def test_a_parts_note_reaches_the_verdicts_reason():
    from .conftest import say

    parts = [Part("a", "holds", "e"), Part("b", "mixed", "e", note="lexicon-dependent: holds with WARRINER")]
    v, reason = verdict(parts)
    assert reason.kind == "reason" and v == "partly"
    assert say(reason) == "a: holds; b: mixed (lexicon-dependent: holds with WARRINER)"


@pytest.mark.parametrize("parts, words", [
    ([Part("a", "untestable", "needs a GPU"), Part("b", "untestable", "no hub")], "a: needs a GPU; b: no hub"),
    ([Part("a", "holds", "e"), Part("b", "holds", "e")], "every part holds"),
    ([Part("a", "fails", "e"), Part("b", "untestable", "needs a GPU")], "a: fails; b: not testable here"),
    ([Part("a", "fails", "e"), Part("b", "not established", "e")], "a: fails; b: not established"),
    ([Part("a", "not established", "e"), Part("b", "holds", "e", context=True)], "a: not established"),
])
def test_the_verdicts_reason_is_worded_by_the_claims_template(parts, words):
    """The reason is a Said (#26: sentences come from the templates only), worded as before the move."""
    from .conftest import say

    reason = verdict(parts)[1]
    assert say(reason) == words


def test_context_parts_do_not_count():
    parts = [Part("paper's models", "untestable", "needs a GPU"), Part("stand-ins", "holds", "e", context=True)]
    assert verdict(parts)[0] == "not testable here"
    with pytest.raises(ValueError, match="outcome"):
        Part("x", "maybe", "e")


# ------------------------------------------------------------------ symmetry by construction (#38)

_MIRROR = {"holds": "fails", "fails": "holds"}
_VERDICT_MIRROR = {"replicates": "does not", "does not": "replicates"}


def _mirror(outcome: str) -> str:
    return _MIRROR.get(outcome, outcome)


def test_every_rule_and_the_verdict_swap_holds_and_fails_when_the_claimed_direction_swaps():
    """Random planted evidence, judged once as claimed and once with the claimed direction turned round: holds and
    fails swap, every other outcome stays, and so do the verdicts built from them (1,000 cases per rule)."""
    import numpy as np

    rng = np.random.default_rng(38)
    for _ in range(1000):
        n = int(rng.integers(1, 12))
        k = int(rng.integers(0, n + 1))
        against = int(rng.integers(0, n - k + 1))
        assert claims.share_outcome(against, n, against=k) == _mirror(claims.share_outcome(k, n, against=against))

        p = float(rng.choice([rng.uniform(0, 0.1), rng.uniform(0, 1)]))
        right = bool(rng.integers(2))
        floor = None if rng.integers(2) else float(rng.uniform(0, 0.1))
        se = None if rng.integers(2) else float(rng.uniform(0, 0.01))
        assert claims.test_outcome(p, not right, floor, se) == _mirror(claims.test_outcome(p, right, floor, se))

        lo = float(rng.normal())
        hi = lo + float(rng.exponential())
        null = float(rng.normal(scale=0.5))
        assert claims.interval_outcome(lo, hi, claimed="below", null=null) == _mirror(
            claims.interval_outcome(lo, hi, claimed="above", null=null))

        a, b = (float(x) for x in rng.integers(0, 4, 2))
        band = float(rng.choice([0.0, 0.5, 1.0]))
        assert claims.order_outcome(b, a, band=band) == _mirror(claims.order_outcome(a, b, band=band))
        assert claims.threshold_outcome(a, b, below=False, band=band) == _mirror(
            claims.threshold_outcome(a, b, band=band))

        outcomes = list(rng.choice(claims.OUTCOMES, size=int(rng.integers(1, 5))))
        context = [bool(rng.integers(2)) for _ in outcomes]
        parts = [Part(f"p{i}", o, "e", context=c) for i, (o, c) in enumerate(zip(outcomes, context))]
        mirrored = [Part(f"p{i}", _mirror(o), "e", context=c) for i, (o, c) in enumerate(zip(outcomes, context))]
        v, w = verdict(parts)[0], verdict(mirrored)[0]
        assert w == _VERDICT_MIRROR.get(v, v), (outcomes, context, v, w)
        if v == "partly":
            lean, mirrored_lean = claims.partly_lean(parts), claims.partly_lean(mirrored)
            assert mirrored_lean == {"for": "against", "against": "for"}.get(lean, lean)
