"""The Big Two chapter (agency vs communion), run from the shared value_profiles template.

The chapter's files:

* ``course.py``: the exercises' checks;
* ``params.yaml``: the full-run values ``make book`` uses;
* ``params.test.yaml``: what the chapter's tests run it with;
* ``params.course.yaml``: the course edition's values.
"""
__all__ = []  # a folder of modules, each imported by its name
