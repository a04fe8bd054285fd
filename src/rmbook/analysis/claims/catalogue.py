"""The claims the book judges, gathered from the chapters: each chapter that tests a claim holds it in its folder's
``claims.py`` (``CLAIMS``: the sentence it tests, where the paper says it, the chapters and data that test it, the
unit it is about, and the function that judges its parts from the chapters' numbers), found by the chapter's name as
its ``course.py`` is. Nothing here lists them: a new claimed chapter edits no file outside its folder. The claims page
gathers every chapter's (:func:`all_claims`); a chapter's "In brief" judges only its own (:func:`chapter_claims`), so
its kernel imports no other chapter's claims and an edit to one claim reruns its chapter and the claims page only."""
from __future__ import annotations

import dataclasses
import functools
import importlib
import os

import pandas as pd

from rmbook.analysis.claims.evidence import Evidence, Say
from rmbook.analysis.claims.papers import PAPERS
from rmbook.analysis.claims.rules import Claim, Part, holm_adjusted, partly_lean, said, support_of, under_control, verdict
from rmbook.analysis.results import result_type
from rmbook.locate import FOLDER, PACKAGE
from rmbook.results import ResultsError, read_results

__all__ = ["claimed_chapters", "all_claims", "chapter_claims", "source_chapters", "load_evidence", "judge",
           "claims_table"]

CLAIMS_MODULE = "claims"  # a chapter's claims: rmbook/chapters/<name>/claims.py


def claimed_chapters() -> list[str]:
    """The chapter folders that hold a ``claims.py``, by name."""
    return sorted(p.parent.name for p in FOLDER.glob(f"*/{CLAIMS_MODULE}.py"))


def chapter_claims(chapter: str) -> list[Claim]:
    """The claims that ``chapter``'s folder holds (``rmbook.chapters.<chapter>.claims.CLAIMS``), in the page's
    order; none for a chapter without a ``claims.py``."""
    if not (FOLDER / chapter / f"{CLAIMS_MODULE}.py").is_file():
        return []
    return sorted(importlib.import_module(f"{PACKAGE}.{chapter}.{CLAIMS_MODULE}").CLAIMS, key=_order)


def _order(claim: Claim) -> tuple:
    """The page's order: by paper (:data:`~rmbook.analysis.claims.papers.PAPERS`, then any other by name), then by
    where the paper states the claim."""
    known = claim.paper in PAPERS
    return (PAPERS.index(claim.paper) if known else len(PAPERS), "" if known else claim.paper, claim.place)


@functools.cache
def all_claims() -> tuple[Claim, ...]:
    """Every chapter's claims, in the page's order (each claim once, under the chapter whose folder holds it)."""
    return tuple(sorted((c for name in claimed_chapters() for c in chapter_claims(name)), key=_order))


def source_chapters() -> list[str]:
    """Every chapter whose results the claims page reads, in the page's order of first use: derived from the
    chapters' claims, not listed."""
    return list(dict.fromkeys(c for claim in all_claims() for c in claim.chapters))


def load_evidence(results_dir: str | os.PathLike, say: Say | None = None,
                  chapters: list[str] | None = None) -> Evidence:
    """Read every source chapter's typed results from ``results_dir`` (a missing, old or foreign file becomes a
    reason, not an error, so the page still shows what can be shown); ``say`` words the evidence (:class:`Evidence`).
    ``chapters``: only these (a chapter judging its own claims reads nothing else)."""
    results, reasons = {}, {}
    for name in (source_chapters() if chapters is None else chapters):
        try:
            results[name] = read_results(name, results_dir, result_type(name))
        except ResultsError as err:
            results[name], reasons[name] = None, str(err)
    return Evidence(results, reasons, say=say)


def judge(claim: Claim, evidence: Evidence) -> list[Part]:
    """The claim's parts, each with its uncorrected ``outcome`` and its ``controlled`` one: the claim judged a second
    time under the page's error control (:func:`~rmbook.analysis.claims.rules.under_control`), with the raw p of its
    counted parts' tests Holm-adjusted together."""
    parts = claim.evaluate(evidence)
    holm = holm_adjusted([p_ for p in parts if not p.context for p_ in p.tests])
    with under_control(holm):
        controlled = claim.evaluate(evidence)
    for part, under in zip(parts, controlled, strict=True):
        part.controlled = under.outcome
    return parts


def claims_table(evidence: Evidence, claims: list[Claim] | None = None) -> tuple[pd.DataFrame, dict[str, list[Part]]]:
    """One row per claim (paper, claim, stated_in, chapters, data, unit, test, evidence, verdict, lean (which way a
    'partly' leans, :func:`~rmbook.analysis.claims.rules.partly_lean`; empty for any other verdict),
    verdict_controlled and lean_controlled (the same under the page's error control, :func:`judge`), support
    (reproduction, replication or both: :func:`~rmbook.analysis.claims.rules.support_of`), reason, and
    attainable_p: the smallest p that the tests behind the counted parts could give at this number of units, None
    when no part rests on such a test) and the parts of each claim, with the references of every number used.
    ``claims``: only these (default: the whole catalogue)."""
    rows, parts = [], {}
    for c in (all_claims() if claims is None else claims):
        ps = judge(c, evidence)
        v, why = verdict(ps)
        under = [dataclasses.replace(p, outcome=p.controlled) for p in ps]
        vc = verdict(under)[0]
        parts[c.key] = ps
        floors = [p.floor for p in ps if p.floor is not None and not p.context and p.outcome != "untestable"]
        rows.append({"key": c.key, "paper": c.paper, "claim": c.claim, "stated_in": c.stated_in,
                     "chapter": ", ".join(c.chapters), "data": c.data, "unit": c.unit, "test": c.test,
                     "evidence": evidence.words(said("evidence_cell", parts=[
                         {"name": p.name, "evidence": p.evidence, "outcome": p.outcome, "context": p.context}
                         for p in ps])),
                     "verdict": v, "lean": partly_lean(ps) if v == "partly" else "",
                     "support": support_of(ps), "verdict_controlled": vc, "lean_controlled": partly_lean(under) if vc == "partly" else "",
                     "reason": evidence.words(why), "attainable_p": min(floors) if floors else None})
    return pd.DataFrame(rows), parts
