"""Whether hiding or neutralising an identity descriptor shrinks the gap in P(yes) between descriptors.

The chapter's files:

* ``analysis.py``: what the notebook calls;
* ``disparity.py``: can a model ignore what it knows? The disparity statistics of the blinding chapter;
* ``prompts.py``: the decisions of the blinding chapter and the four conditions' prompts (no model is loaded here);
* ``scores.py``: p(yes) of one model under the four conditions, read exactly through the engine (no sampling);
* ``results.py``: builds the chapter's results (``chapter_results``);
* ``types.py``: the results type alone, which the claims page reads;
* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``charts.py``: the charts only this chapter draws;
* ``tables.py``: the chapter's widest tables folded into a few named columns, to fit the page;
* ``course.py``: the exercises' checks;
* ``params.yaml``: the full-run values ``make book`` uses;
* ``params.course.yaml``: the course edition's values.
"""
__all__ = []  # a folder of modules, each imported by its name
