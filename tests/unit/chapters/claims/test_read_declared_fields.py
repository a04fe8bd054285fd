"""Every field the claims page reads exists in its chapter's results type and has a concrete type: each claim's
evaluator runs over the types themselves (:meth:`Evidence.schema`), so a renamed or untyped field fails here, in
``make test-fast``, and not only after a papermill run of every chapter."""
from __future__ import annotations

import pytest

from rmbook.analysis.results import result_type
from rmbook.chapters.claims.analysis import CLAIMS, Evidence
from rmbook.report.brief import words
from rmbook.report.prose import render


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.key for c in CLAIMS])
def test_every_field_a_claim_reads_is_declared_and_typed(claim):
    e = Evidence.schema({c: result_type(c) for c in claim.chapters},
                        say=words)
    parts = claim.evaluate(e)  # a SchemaError (unknown field, untyped value, unknown key) fails the test, and so
    # does a sentence whose macro is missing or reads a field its evaluator does not give (StrictUndefined)
    unread = [f"{p.name}: {p.evidence}" for p in parts if p.evidence.startswith("not available here")]
    assert unread == [], "parts that stopped on a missing number over the types alone"
    assert any(p.refs for p in parts) or all(p.outcome == "untestable" for p in parts)
    for p in parts:
        for r in p.refs:
            assert r.chapter in claim.chapters and r.path, (p.name, r)


def test_the_parts_that_can_hold_but_never_fail_say_so():
    """#63 item 4: "every rule is its own mirror image" was not true of the page: six counted parts can hold but
    never fail. Each carries its reason, the page marks it, and the rules no longer claim a mirror for them."""
    one_sided = {}
    for claim in CLAIMS:
        e = Evidence.schema({c: result_type(c) for c in claim.chapters},
                            say=words)
        one_sided |= {(claim.key, p.name): p.one_sided for p in claim.evaluate(e) if p.one_sided and not p.context}
    assert set(one_sided) == {("asymmetry", "asymmetric score distributions (items)"),
                              ("identity_terms", "some identity terms placed below human ratings"),
                              ("mfd2", "several foundations differ by base family"),
                              ("accuracy_not_speed", "more accurate yet slower RM pairs exist"),
                              ("likelihood_displacement", "along DPO training"),
                              ("likelihood_displacement", "on held-out pairs after training")}
    from rmbook.chapters.claims.analysis import rules_fields

    rules = " ".join(render("claims", "rules", s=rules_fields()).split())
    assert "Every rule below is its own mirror image" not in rules and "One-sided checks" in rules
