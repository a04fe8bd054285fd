"""RMs against people on EloEverything: the most over- and under-valued items and their themes.

The chapter's files:

* ``analysis.py``: what the notebook calls;
* ``misalignment.py``: where do models over- or under-value items relative to human ratings (EloEverything)? Two
  methods side by side (rank and z differences), per model, per category (cluster bootstrap) and as a consensus over
  models;
* ``topics.py``: coarse topics for EloEverything items from WordNet noun supersenses, and the paper's four themes as a
  fixed map;
* ``results.py``: builds the chapter's results (``chapter_results``);
* ``types.py``: the results type alone, which the claims page reads;
* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``tables.py``: the chapter's widest tables folded into a few named columns, to fit the page;
* ``course.py``: the exercises' checks;
* ``params.yaml``: the full-run values ``make book`` uses;
* ``claims.py``: the claims of the papers that this chapter's results test, each with the function that judges
  its parts (the claims page gathers them; the chapter's "In brief" judges them), and ``claims.md.j2`` their
  evidence sentences;
* ``params.course.yaml``: the course edition's values.
"""
__all__ = []  # a folder of modules, each imported by its name
