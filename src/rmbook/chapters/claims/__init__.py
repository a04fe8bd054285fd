"""What replicates: every claim of the two papers judged by a stated rule from the chapters' typed results.

The chapter's files:

* ``analysis.py``: what the notebook calls;
* ``catalogue.py``: every claim of the two papers (and of Razin et al.'s, which the reward-model quality chapters
  test): the sentence it tests, where the paper says it, the chapters and data that test it, the unit it is about, and
  the function that judges its parts from the chapters' numbers (``facct.py``, ``iclr.py``, ``teaching.py``,
  ``implicit_explicit.py``);
* ``evidence.py``: evidence with provenance: every number a claim uses is read from a chapter's typed results by
  attribute, through :class:`Evidence`, which records the chapter and the path of each number it hands out;
* ``facct.py``: how the claims of the FAccT 2025 paper (optimal and pessimal tokens) are judged from the chapters'
  numbers: one evaluate function per claim, returning its parts (the catalogue pairs each with its sentence and
  source);
* ``iclr.py``: how the claims of the ICLR 2026 paper (value biases inherited from pretraining) are judged from the
  chapters' numbers: the Big Two and MFD2 panels by direction and attainable significance, the three-way interaction
  with models as replicates, and durability run by run;
* ``implicit_explicit.py``: the claims of Razin et al;
* ``rules.py``: how a claim gets a verdict: one vocabulary of outcomes, the rules that give a part its outcome, and
  the rule from parts to a verdict;
* ``teaching.py``: how the claims of Razin et al;
* ``results.py``: builds the chapter's results (``chapter_results``);
* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``charts.py``: the charts only this chapter draws;
* ``params.yaml``: the full-run values ``make book`` uses.
"""
__all__ = []  # a folder of modules, each imported by its name
