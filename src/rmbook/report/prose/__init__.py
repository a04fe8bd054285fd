"""Findings in sentences (no number typed in by hand).

One mechanism for every chapter: ``render.py`` renders a paragraph from a Jinja template, one macro per paragraph,
given sections of the chapter's results type, so a chapter's sentences read as sentences in one file and the prose
computes nothing. A chapter's own sentences are its folder's ``prose.md.j2`` (and, where it holds claims, its
``claims.md.j2``: their evidence sentences), found by the chapter's name (:mod:`rmbook.locate`); the sentences
several chapters share are here, in ``templates/``:

* ``templates/beside.md.j2``: the paragraph a chapter run in compute mode adds to keep the paper RMs on its page
  (framing, mere_exposure, identity_terms, elo_misalignment).
* ``templates/card.md.j2``: a value card's sentences (``rmlib card`` and the value cards chapter).
* ``templates/verdicts.md.j2``: what every claim shares, whichever chapter holds it: a chapter's "In brief"
  (:mod:`rmbook.report.brief`), a verdict's reason, the claims table's evidence cell, and the clause that states
  the smallest p a panel can reach.
"""
from rmbook.report.prose.render import render

__all__ = ["render"]
