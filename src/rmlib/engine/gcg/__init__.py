"""Multi-token optima and pessima by Greedy Coordinate Gradient search (Zou et al. 2023), for reward models and for
language models' implicit rewards.

* :func:`gcg` (``run.py``): restarts, the verified result cache, progress; :class:`GCGResult`;
* ``objective.py``: the one signed objective (reward of prefix + response + suffix, read as the sweep engine reads
  it) and its gradient through the one-hot response;
* ``search.py``: one restart: top-k candidates (:func:`top_replacements`), the decode->encode filter, the buffer of
  best sequences (:class:`GCGConfig`, :class:`Vocabulary`).
"""
from rmlib.lazy import lazy_face

# where each public name lives: imported on first use (rmlib.lazy), so importing this package loads no torch
_WHERE = {
    **dict.fromkeys(["DIRECTIONS", "GCGError", "Objective"], "objective"),
    **dict.fromkeys(["ALGORITHM", "GCGResult", "gcg"], "run"),
    **dict.fromkeys(["GCGConfig", "Vocabulary", "run_restart", "top_replacements"], "search"),
}
__getattr__, __dir__ = lazy_face(__name__, _WHERE)

__all__ = ["gcg", "GCGResult", "GCGConfig", "GCGError", "DIRECTIONS", "ALGORITHM", "Objective", "Vocabulary",
           "run_restart", "top_replacements"]
