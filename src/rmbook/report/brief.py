"""A chapter's "In brief": what it found, in two to four sentences, for the top of its page.

A reader should meet the findings first and the design and evidence after, but a notebook computes its findings
last. So a chapter shows its brief in its last cell, tagged ``in-brief``, once every number exists, and the book
runner moves that text under the page's title (:func:`rmbook.book.in_brief.lift_in_brief`).

A chapter that the claims page reads judges its own claims here, by the same code and rules as that page
(:func:`rmbook.chapters.claims.analysis.claims_table`), on the numbers it has just written, so its brief uses the page's
verdict words and cannot disagree with it on the same run. Any other chapter words its brief from its own results
(the ``brief`` macro of its prose template).
"""
from __future__ import annotations

import os

from rmbook.chapters.claims import analysis as claims
from rmbook.chapters.claims import results as claims_results
from rmbook.report import prose

__all__ = ["claims_brief"]


def _say(kind: str, fields: dict) -> str:
    return prose.render("claims", kind, **fields)


def claims_brief(chapter: str, results_dir: str | os.PathLike | None) -> str:
    """The brief of a chapter that the claims page reads: each of its claims with its verdict and the verdict's
    reason, judged on the results ``chapter`` wrote to ``results_dir`` (None: the run wrote none, and says so)."""
    tested = claims.chapter_claims(chapter)
    if not tested:
        raise KeyError(f"the claims page tests no claim with {chapter!r}'s results: give it a `brief` macro in its "
                       "prose template instead")
    if results_dir is None:
        return prose.render("claims", "brief_unjudged", n=len(tested))
    evidence = claims.load_evidence(results_dir, say=_say, chapters=[chapter])
    table, parts = claims.claims_table(evidence, tested)
    shown = [claims_results.claim_shown(row, parts[row.key]) for row in table.itertuples()]
    return prose.render("claims", "brief", claims=shown)
