"""#63 item 5: error control over a part's units and a claim's tests, shown beside the uncorrected verdicts."""
from __future__ import annotations

import pytest

from rmbook.chapters.claims import analysis as claims
from rmbook.chapters.claims.analysis import Part


def test_one_clear_unit_of_ten_is_what_chance_gives_under_control():
    """With 10 RMs and no effect, at least one of ten 95% intervals clears 0 about 40% of the time; uncorrected,
    share_outcome(0, 10, against=1) is "mixed" and the claim "partly"."""
    assert claims.chance_p(1, 10) == pytest.approx(1 - 0.95 ** 10)
    assert claims.share_outcome(0, 10, against=1) == "mixed"
    with claims.under_control():
        assert claims.share_outcome(0, 10, against=1) == "not established"
        assert claims.share_outcome(2, 10, against=0) == "not established"  # P(X >= 2) = 0.086
        assert claims.share_outcome(3, 10, against=1) == "mixed"
        assert claims.share_outcome(8, 10, against=0) == "holds" and claims.share_outcome(0, 10, against=8) == "fails"
        assert claims.share_outcome(1, 1, against=0) == "holds"  # one unit: its own test, nothing to correct
        assert claims.exists_outcome(1, n=31) == "not established" and claims.exists_outcome(13, n=31) == "holds"
    assert claims.share_outcome(0, 10, against=1) == "mixed"  # the control ends with the block


def test_a_claims_tests_are_holm_adjusted_under_control():
    with claims.under_control(holm={0.03: 0.06}):
        assert claims.test_outcome(0.03, True) == "not established" and claims.test_outcome(0.01, True) == "holds"
    assert claims.holm_adjusted([0.01, 0.03, 0.5]) == pytest.approx({0.01: 0.03, 0.03: 0.06, 0.5: 0.5})


def test_the_control_is_symmetric():
    import numpy as np

    mirror = {"holds": "fails", "fails": "holds"}
    rng = np.random.default_rng(63)
    with claims.under_control():
        for _ in range(500):
            n = int(rng.integers(1, 12))
            k = int(rng.integers(0, n + 1))
            against = int(rng.integers(0, n - k + 1))
            got = claims.share_outcome(k, n, against=against)
            assert claims.share_outcome(against, n, against=k) == mirror.get(got, got)


def test_the_page_shows_each_claim_under_control_beside_its_uncorrected_verdict(planted):
    exposure = [{"source": s, "prompts": pv, "n_above": 1, "n_below": 0, "n_models": 10}
                for s in ("bnc",) for pv in ("positive", "negative")]
    e = planted({"mere_exposure": {"matchings": ["bnc"], "by_model": exposure}})
    table, parts = claims.claims_table(e, [c for c in claims.CLAIMS if c.key == "mere_exposure"])
    row = table.iloc[0]
    assert (row["verdict"], row["lean"]) == ("partly", "both ways")
    assert (row["verdict_controlled"], row["lean_controlled"]) == ("not established", "")
    assert [p.controlled for p in parts["mere_exposure"]] == ["not established", "not established"]
    assert [p.outcome for p in parts["mere_exposure"]] == ["mixed", "mixed"]
    from rmbook.chapters.claims import results
    from rmbook.report.prose import render

    glance = results.glance_table(table)
    assert list(glance.columns) == ["claim", "verdict", "under control", "why"]
    assert glance.iloc[0]["under control"] == "not established"
    shown = render("claims", "claim", s=results.claim_shown(next(table.itertuples()), parts["mere_exposure"]))
    assert "**Verdict: partly (both ways)** (by reproduction). " in shown and "Under error control: **not established**" in shown
    rules = " ".join(render("claims", "rules", s=claims.rules_fields()).split())
    assert "Error control" in rules and "Holm" in rules and "binomial" in rules
