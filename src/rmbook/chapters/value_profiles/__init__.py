"""The template the Big Two and Moral Foundations chapters share: its results type, sentences and tables.

The chapter's files:

* ``results.py``: builds the chapter's results (``chapter_results``);
* ``types.py``: the results type alone, which the claims page reads;
* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``tables.py``: the chapters' test tables folded into a few named columns, to fit the page.
"""
__all__ = []  # a folder of modules, each imported by its name
