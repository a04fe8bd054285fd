"""A claim as a page shows it (the claims page claim by claim, and a chapter's "In brief"): its row of
:func:`~rmbook.analysis.claims.catalogue.claims_table` with the verdict's lean, the reason as a sentence, and its
parts. Here, below both, so that a chapter's brief (:mod:`rmbook.report.brief`) imports no module of the claims
page."""
from __future__ import annotations

import pandas as pd

from rmbook.analysis.claims.rules import Part, verdict_shown
from rmlib.storage import Num, Section

__all__ = ["PartShown", "ClaimShown", "claim_shown"]


class PartShown(Section):
    name: str
    outcome: str
    controlled: str  # the outcome under the page's error control
    context: bool
    evidence: str
    one_sided: str
    support: str


class ClaimShown(Section):
    """One claim as the page shows it: its row of the table, the reason as a sentence, and its parts."""

    claim: str
    verdict: str
    verdict_controlled: str  # the verdict under the page's error control, with its lean
    support: str  # what the verdict rests on: reproduction, replication, or both ("" when nothing was testable)
    reason: str  # capitalised: it starts a sentence
    attainable_p: Num  # None when no counted part rests on a test with a floor
    paper: str
    stated_in: str
    chapter: str
    data: str
    unit: str
    test: str
    parts: list[PartShown]


def claim_shown(row, parts: list[Part]) -> ClaimShown:
    """The section of one row of :func:`~rmbook.analysis.claims.catalogue.claims_table`'s table (``itertuples``) and
    its parts."""
    return ClaimShown(claim=row.claim, verdict=verdict_shown(row.verdict, row.lean),
                      verdict_controlled=verdict_shown(row.verdict_controlled, row.lean_controlled),
                      support=row.support, reason=row.reason[0].upper() + row.reason[1:],
                      attainable_p=None if pd.isna(row.attainable_p) else row.attainable_p, paper=row.paper,
                      stated_in=row.stated_in, chapter=row.chapter, data=row.data, unit=row.unit, test=row.test,
                      parts=[PartShown(name=p.name, outcome=p.outcome, controlled=p.controlled, context=p.context,
                                       evidence=p.evidence, one_sided=p.one_sided, support=p.support) for p in parts])
