"""The method: one live token sweep and its extremes, the round-trip audit per model, id-exact vs paper mode.

The chapter's files:

* ``analysis.py``: what the notebook calls;
* ``results.py``: builds the chapter's results (``chapter_results``);
* ``types.py``: the results type alone, which the claims page reads;
* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``course.py``: the exercises' checks;
* ``params.yaml``: the full-run values ``make book`` uses;
* ``params.course.yaml``: the course edition's values.
"""
__all__ = []  # a folder of modules, each imported by its name
