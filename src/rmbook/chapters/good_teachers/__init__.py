"""Whether an accurate RM is a good teacher: per setting, how fast each proxy RM teaches a policy.

The chapter's files:

* ``analysis.py``: what the notebook calls;
* ``dynamics.py``: is an accurate reward model a good teacher? Exact policy-gradient dynamics over a finite set of
  responses;
* ``settings.py``: the two response sets of the good-teacher analysis (:mod:`rmbook.chapters.good_teachers.analysis`),
  built the same way;
* ``stats.py``: does accuracy or variance predict teaching speed? Rank correlations across RMs, and the pairs that
  defy accuracy;
* ``results.py``: builds the chapter's results (``chapter_results``);
* ``types.py``: the results type alone, which the claims page reads;
* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``charts.py``: the charts only this chapter draws;
* ``tables.py``: the chapter's widest tables folded into a few named columns, to fit the page;
* ``course.py``: the exercises' checks;
* ``params.yaml``: the full-run values ``make book`` uses;
* ``claims.py``: the claims of the papers that this chapter's results test, each with the function that judges
  its parts (the claims page gathers them; the chapter's "In brief" judges them), and ``claims.md.j2`` their
  evidence sentences;
* ``params.course.yaml``: the course edition's values.
"""
__all__ = []  # a folder of modules, each imported by its name
