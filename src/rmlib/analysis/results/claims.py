"""The claims page's results: the rules' thresholds, which chapters it read, one row per claim with its verdict,
and every part of every claim with the numbers it used and where each came from (``steps`` to follow into the
chapter's results file, :func:`rmlib.analysis.claims.follow`)."""
from __future__ import annotations

import pandas as pd

from rmlib.analysis import claims
from rmlib.storage import ChapterResults, JsonData, Num, Section, Table

__all__ = ["NumberRef", "DerivedNumber", "PartResult", "ClaimsResults", "chapter_results"]


class NumberRef(Section):
    """One number a part read: the chapter, the path as the page prints it, the steps to follow, and its value."""

    chapter: str
    path: str
    steps: JsonData
    value: JsonData


class DerivedNumber(Section):
    """A number a part computed from those it read (a count over panels, a test's floor)."""

    what: str
    value: JsonData


class PartResult(Section):
    name: str
    outcome: str
    evidence: str
    context: bool
    floor: Num
    note: str
    refs: list[NumberRef]
    derived: list[DerivedNumber]


class ClaimsResults(ChapterResults):
    CHAPTERS = ("claims",)

    rules: dict[str, float]
    chapters_read: list[str]
    rows: Table  # one per claim: paper, claim, chapter, data, unit, test, evidence, verdict, reason, attainable_p
    parts: dict[str, list[PartResult]]


def _part(p: claims.Part) -> PartResult:
    return PartResult(name=p.name, outcome=p.outcome, evidence=p.evidence, context=p.context, floor=p.floor,
                      note=p.note, refs=[NumberRef(chapter=r.chapter, path=r.path, steps=r.steps, value=r.value)
                                         for r in p.refs],
                      derived=[DerivedNumber(what=r.path, value=r.value) for r in p.derived])


def chapter_results(chapters_read: list[str], table: pd.DataFrame,
                    parts: dict[str, list[claims.Part]]) -> ClaimsResults:
    """The page's results from :func:`rmlib.analysis.claims.claims_table`'s table and parts."""
    return ClaimsResults(rules={"MOST": claims.MOST, "ALPHA": claims.ALPHA,
                                "TAU_HETEROGENEOUS": claims.TAU_HETEROGENEOUS, "MULTIPLE": claims.MULTIPLE},
                         chapters_read=chapters_read, rows=table,
                         parts={k: [_part(p) for p in ps] for k, ps in parts.items()})
