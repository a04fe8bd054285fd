"""The claims page's results: the rules' thresholds, which chapters it read, one row per claim with its verdict,
and every part of every claim with the numbers it used and where each came from (``steps`` to follow into the
chapter's results file, :func:`rmbook.analysis.claims.follow`). The page's own sentences are rendered from the
sections below (``rmbook/chapters/claims/prose.md.j2``: ``read_from``, ``at_a_glance``, ``claim``), each part's
evidence from the fields its evaluator gave (:class:`rmbook.chapters.claims.analysis.Said`)."""
from __future__ import annotations

import pandas as pd

from rmbook.chapters.claims import analysis as claims
from rmbook.analysis.claims.shown import ClaimShown, PartShown, claim_shown  # re-exported: the page's sections
from rmlib.storage import JsonData, Num, Section, Table
from rmbook.results import ChapterResults

__all__ = ["NumberRef", "DerivedNumber", "PartResult", "ClaimsResults", "UnreadChapter", "SourcesRead",
           "VerdictCount", "Glance", "PartShown", "ClaimShown", "sources_read", "glance", "claim_shown",
           "chapter_results", "glance_table"]


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
    one_sided: str  # why the part can hold but never fail; "" for a two-sided part
    controlled: str  # its outcome under the page's error control
    support: str  # "reproduction" (the authors' released data) or "replication" (new models)


class ClaimsResults(ChapterResults):
    CHAPTERS = ("claims",)
    # 2: parts[].one_sided (#63 item 4). 3: parts[].controlled, rows' verdict_controlled and lean (#63 items 3, 5).
    # 4: parts[].support, rows' support (#63 item 9)
    SCHEMA_VERSION = 4

    rules: dict[str, float]
    chapters_read: list[str]
    rows: Table  # one per claim: paper, claim, chapter, data, unit, test, evidence, verdict, reason, attainable_p
    parts: dict[str, list[PartResult]]


class UnreadChapter(Section):
    chapter: str
    reason: str  # why its results could not be read


class SourcesRead(Section):
    """Which of the chapters the page reads wrote results it could read."""

    n_read: int
    n_sources: int
    read: list[str]
    unread: list[UnreadChapter]
    all_read: bool


class VerdictCount(Section):
    verdict: str
    n: int


class Glance(Section):
    """How many claims got each verdict (every verdict, in the order of ``claims.VERDICTS``), and how many of the
    *partly* verdicts lean each way (``claims.LEANS``)."""

    n_claims: int
    counts: list[VerdictCount]
    partly: list[VerdictCount]  # verdict: the lean ("for", "both ways", "against")
    controlled: bool = False  # the verdicts under the page's error control


def sources_read(evidence: claims.Evidence) -> SourcesRead:
    """The section of :func:`rmbook.chapters.claims.analysis.load_evidence`'s evidence."""
    sources = claims.source_chapters()
    read = [c for c in sources if evidence.results[c] is not None]
    return SourcesRead(n_read=len(read), n_sources=len(sources), read=read,
                       unread=[UnreadChapter(chapter=c, reason=evidence.reasons[c]) for c in sources if c not in read],
                       all_read=len(read) == len(sources))


def glance(table: pd.DataFrame, controlled: bool = False) -> Glance:
    """The section of :func:`rmbook.chapters.claims.analysis.claims_table`'s table: its uncorrected verdicts, or
    (``controlled``) those under the page's error control."""
    verdicts, lean = ("verdict_controlled", "lean_controlled") if controlled else ("verdict", "lean")
    counts = table[verdicts].value_counts()
    # rows stored before the lean was kept (#63 item 3) have no lean column: no breakdown, rather than a wrong one
    by_lean = table.loc[table[verdicts] == "partly", lean].value_counts() if lean in table else None
    return Glance(n_claims=len(table), counts=[VerdictCount(verdict=v, n=int(counts.get(v, 0)))
                                               for v in claims.VERDICTS],
                  partly=[] if by_lean is None else [VerdictCount(verdict=w, n=int(by_lean.get(w, 0)))
                                                     for w in claims.LEANS], controlled=controlled)


def glance_table(table: pd.DataFrame) -> pd.DataFrame:
    """The verdicts at a glance in four columns that fit the text column (#43 item 3: six columns hid the reason at
    1280 px): the claim with the paper that states it, the verdict (uncorrected), the verdict under the page's error
    control (#63 item 5), and why, with the smallest p the data could give where it binds and the chapter that has
    the evidence."""
    def why(row) -> str:
        floor = "" if pd.isna(row.attainable_p) else f"; the smallest attainable p is {row.attainable_p:.2g}"
        support = f"{getattr(row, 'support', '')}; " if getattr(row, "support", "") else ""
        return f"{row.reason[0].upper()}{row.reason[1:]}{floor} ({support}chapter: {row.chapter})"

    return pd.DataFrame({"claim": [f"{r.claim} ({r.paper})" for r in table.itertuples()],
                         "verdict": [claims.verdict_shown(r.verdict, getattr(r, "lean", "")) for r in table.itertuples()],
                         "under control": [claims.verdict_shown(r.verdict_controlled, r.lean_controlled)
                                           for r in table.itertuples()],
                         "why": [why(r) for r in table.itertuples()]})


def _part(p: claims.Part) -> PartResult:
    return PartResult(name=p.name, outcome=p.outcome, evidence=p.evidence, context=p.context, floor=p.floor,
                      note=p.note, refs=[NumberRef(chapter=r.chapter, path=r.path, steps=r.steps, value=r.value)
                                         for r in p.refs],
                      derived=[DerivedNumber(what=r.path, value=r.value) for r in p.derived], one_sided=p.one_sided,
                      controlled=p.controlled, support=p.support)


def chapter_results(chapters_read: list[str], table: pd.DataFrame,
                    parts: dict[str, list[claims.Part]]) -> ClaimsResults:
    """The page's results from :func:`rmbook.chapters.claims.analysis.claims_table`'s table and parts."""
    return ClaimsResults(rules={"MOST": claims.MOST, "ALPHA": claims.ALPHA,
                                "TAU_HETEROGENEOUS": claims.TAU_HETEROGENEOUS, "MULTIPLE": claims.MULTIPLE},
                         chapters_read=chapters_read, rows=table,
                         parts={k: [_part(p) for p in ps] for k, ps in parts.items()})
