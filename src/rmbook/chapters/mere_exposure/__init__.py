"""With valence fixed, how often an RM's score rises with word frequency; the verdict.

The chapter's files:

* ``analysis.py``: what the notebook calls;
* ``slopes.py``: mere exposure: do reward models prefer frequent words? (FAccT 2025.);
* ``verdicts.py``: the mere exposure chapter on top of :mod:`.slopes`: the data of a run, the verdict per model,
  whether the word frequency matchings agree, and whether an RM pays for frequency beyond what its base LM already
  prefers;
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
