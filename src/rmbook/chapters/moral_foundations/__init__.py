"""The Moral Foundations (MFD2) chapter, run from the shared value_profiles template.

The chapter's files:

* ``course.py``: the exercises' checks;
* ``params.yaml``: the full-run values ``make book`` uses;
* ``params.test.yaml``: what the chapter's tests run it with;
* ``claims.py``: the claims of the papers that this chapter's results test, each with the function that judges
  its parts (the claims page gathers them; the chapter's "In brief" judges them), and ``claims.md.j2`` their
  evidence sentences;
* ``params.course.yaml``: the course edition's values.
"""
__all__ = []  # a folder of modules, each imported by its name
