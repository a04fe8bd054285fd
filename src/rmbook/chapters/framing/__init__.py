"""Per lexicon, each model's valence slopes and the two halves of the framing claim, with CIs.

The chapter's files:

* ``analysis.py``: what the notebook calls;
* ``contrast.py``: framing: does the prompt's valence change which words an RM is sensitive to? (FAccT 2025.);
* ``sources.py``: the framing chapter on top of :mod:`.contrast`: the claim under several affect lexicons, prompt by
  prompt, and which words decide it;
* ``results.py``: builds the chapter's results (``chapter_results``);
* ``types.py``: the results type alone, which the claims page reads;
* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``course.py``: the exercises' checks;
* ``params.yaml``: the full-run values ``make book`` uses;
* ``claims.py``: the claims of the papers that this chapter's results test, each with the function that judges
  its parts (the claims page gathers them; the chapter's "In brief" judges them), and ``claims.md.j2`` their
  evidence sentences;
* ``params.course.yaml``: the course edition's values.
"""
__all__ = []  # a folder of modules, each imported by its name
