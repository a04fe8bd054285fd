"""One explicit and one implicit (DPO) RM trained alike: accuracy per set, gaps, displacement.

The chapter's files:

* ``analysis.py``: what the notebook calls;
* ``token_shift.py``: a token-level distribution shift: deterministic, meaning-preserving rewrites of preference
  pairs;
* ``results.py``: builds the chapter's results (``chapter_results``);
* ``types.py``: the results type alone, which the claims page reads;
* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``charts.py``: the charts only this chapter draws;
* ``course.py``: the exercises' checks;
* ``params.yaml``: the full-run values ``make book`` uses;
* ``params.test.yaml``: what the chapter's tests run it with;
* ``claims.py``: the claims of the papers that this chapter's results test, each with the function that judges
  its parts (the claims page gathers them; the chapter's "In brief" judges them), and ``claims.md.j2`` their
  evidence sentences;
* ``params.course.yaml``: the course edition's values.
"""
__all__ = []  # a folder of modules, each imported by its name

# the chapters whose modules this one imports, and why (a chapter imports another only through a declared dependency)
USES = {"finetuning": "its EX-RM is a Bradley-Terry run of the finetuning chapter, named as that chapter names its "
                      "runs (run_name), so the two chapters share one trained RM"}
