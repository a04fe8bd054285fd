"""RMs trained here from each base on identical pairs: their base imprint, family durability.

The chapter's files:

* ``analysis.py``: what the notebook calls;
* ``durability.py``: is a base-family ordering durable? Orders of a few families compared across checkpoints, data
  sizes or seeds;
* ``results.py``: builds the chapter's results (``chapter_results``);
* ``types.py``: the results type alone, which the claims page reads;
* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``tables.py``: the chapter's widest tables folded into a few named columns, to fit the page;
* ``course.py``: the exercises' checks;
* ``params.yaml``: the full-run values ``make book`` uses;
* ``params.test.yaml``: what the chapter's tests run it with;
* ``claims.py``: the claims of the papers that this chapter's results test, each with the function that judges
  its parts (the claims page gathers them; the chapter's "In brief" judges them), and ``claims.md.j2`` their
  evidence sentences;
* ``params.course.yaml``: the course edition's values.
"""
__all__ = []  # a folder of modules, each imported by its name
