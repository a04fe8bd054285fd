"""rmbook.analysis.claims.evidence: numbers read by attribute from typed results, the provenance of each, missing
numbers (untestable) apart from fields the type does not declare (a bug, raised), and the schema mode that checks
the claims' reads against the types without any chapter having run."""
from __future__ import annotations

from typing import Literal

import pytest

from rmbook.chapters.claims import analysis as claims
from rmbook.chapters.claims.analysis import Evidence, SchemaError, follow
from rmlib.storage import JsonData, Num, Record
from rmbook.results import ChapterResults


class Pair(Record):
    design: Literal["base", "size"]
    r: Num


class Run(Record):
    tau: Num
    pairs: list[Pair]
    counts: dict[str, int]
    labels: list[str]
    shown: JsonData = None


class DemoResults(ChapterResults):
    CHAPTERS = ("ch",)
    runs: dict[Literal["published", "compute"], Run]
    n: int


def demo():
    return DemoResults(n=3, runs={"published": Run(tau=0.4, pairs=[{"design": "base", "r": 0.6},
                                                                    {"design": "size", "r": None}],
                                                    counts={"a": 2}, labels=["x", "y"], shown={"k": 1})})


def test_reads_by_attribute_record_their_source_and_follow_back():
    e = Evidence({"ch": demo(), "gone": None}, {"gone": "chapter 'gone' has not run"})
    run = e.of("ch").runs["published"]
    assert run.tau == 0.4 and run.pairs.where(design="base").r == 0.6 and run.labels == ["x", "y"]
    assert run.counts["a"] == 2 and run.counts.keys() == ["a"] and [p.design for p in run.pairs] == ["base", "size"]
    refs = e.take()
    assert [r.path for r in refs[:3]] == ["runs['published'].tau", "runs['published'].pairs.where(design='base').r",
                                          "runs['published'].labels"]
    assert all(follow(demo(), r.steps) == r.value for r in refs)
    assert all(follow(demo().model_dump(mode="json"), r.steps) == r.value for r in refs)  # the stored JSON too
    assert e.refs == []
    with pytest.raises(claims.Missing, match="has not run"):
        e.of("gone")
    with pytest.raises(claims.Missing, match="did not compute"):
        run.pairs.where(design="size").r
    with pytest.raises(claims.Missing, match="no 'compute'"):
        e.of("ch").runs["compute"]
    with pytest.raises(claims.Missing, match="0 records"):
        run.pairs.where(design="other")


def test_a_field_the_type_does_not_declare_is_a_schema_error_not_a_missing_number():
    e = Evidence({"ch": demo()})
    with pytest.raises(SchemaError, match="declares only tau, pairs"):
        e.of("ch").runs["published"].tau_median
    with pytest.raises(SchemaError, match="not a results record"):
        e.of("ch").runs["published"].shown.k  # untyped JSON: readable only by key, never by attribute


def test_schema_mode_checks_reads_against_the_types_alone():
    e = Evidence.schema({"ch": DemoResults})
    run = e.of("ch").runs["published"]
    assert isinstance(run.tau, float) and run.pairs.where(design="base").r == 0.5 and run.labels == ["x"]
    assert isinstance(run.counts["anything"], int) and e.of("ch").runs.keys() == ["published", "compute"]
    with pytest.raises(SchemaError, match="keys are"):
        e.of("ch").runs["publishd"]
    with pytest.raises(SchemaError, match="declares only"):
        run.tau_median
    with pytest.raises(SchemaError, match="declare"):
        run.pairs.where(desing="base")
    with pytest.raises(SchemaError, match="typed"):
        run.shown  # a claim may not read untyped JSON


def test_a_claim_with_missing_numbers_is_untestable_not_false():
    from .conftest import say

    e = Evidence({c: None for c in claims.source_chapters()}, say=say)
    table, parts = claims.claims_table(e)
    assert set(table["verdict"]) == {"not testable here"}
    for key, reason in zip(table["key"], table["reason"]):  # the reason names each counted part and its why
        assert all(f"{p.name}: {p.evidence}" in reason for p in parts[key] if not p.context), key
    assert all(p.outcome == "untestable" for ps in parts.values() for p in ps if not p.context)
