"""The opening page: what the book asks, and the paper RMs' single best and worst words.

The chapter's files:

* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``charts.py``: the charts only this chapter draws;
* ``params.yaml``: the full-run values ``make book`` uses.
"""
__all__ = []  # a folder of modules, each imported by its name
