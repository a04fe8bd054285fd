"""A chapter's "In brief": what it found, in two to four sentences, for the top of its page; and the words of a
claim's evidence.

A reader should meet the findings first and the design and evidence after, but a notebook computes its findings
last. So a chapter shows its brief in its last cell, tagged ``in-brief``, once every number exists, and the book
runner moves that text under the page's title (:func:`rmbook.book.in_brief.lift_in_brief`).

A chapter that holds claims (its folder's ``claims.py``) judges them here, by the same code and rules as the claims
page (:func:`rmbook.analysis.claims.claims_table`), on the numbers it has just written, so its brief uses the page's
verdict words and cannot disagree with it on the same run. It judges only its own claims: its kernel imports no
other chapter's claims and renders no other chapter's sentences, so an edit to one claim reruns its chapter and the
claims page, and nothing else. Any other chapter words its brief from its own results (the ``brief`` macro of its
prose template).
"""
from __future__ import annotations

import os

from rmbook.analysis import claims
from rmbook.report import prose

__all__ = ["claims_brief", "words"]


def words(said: claims.Said) -> str:
    """A part's evidence sentence (or a verdict's reason) in words: the macro ``said.kind`` of the template
    ``said.template`` names (a chapter's ``<chapter>/claims.md.j2``, or the shared ``templates/verdicts.md.j2``),
    rendered from ``said.fields``. What :class:`~rmbook.analysis.claims.Evidence` is given as ``say``."""
    return prose.render(said.template, said.kind, **said.fields)


def claims_brief(chapter: str, results_dir: str | os.PathLike | None) -> str:
    """The brief of a chapter that holds claims: each of its claims with its verdict and the verdict's reason,
    judged on the results ``chapter`` wrote to ``results_dir`` (None: the run wrote none, and says so)."""
    tested = claims.chapter_claims(chapter)
    if not tested:
        raise KeyError(f"chapter {chapter!r} holds no claims (no claims.py in its folder): give it a `brief` macro "
                       "in its prose template instead")
    if results_dir is None:
        return prose.render(claims.VERDICT_WORDS, "brief_unjudged", n=len(tested))
    needs = list(dict.fromkeys(c for claim in tested for c in claim.chapters))
    evidence = claims.load_evidence(results_dir, say=words, chapters=needs)
    table, parts = claims.claims_table(evidence, tested)
    shown = [claims.claim_shown(row, parts[row.key]) for row in table.itertuples()]
    return prose.render(claims.VERDICT_WORDS, "brief", claims=shown)
