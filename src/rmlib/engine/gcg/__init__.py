"""Multi-token optima and pessima by Greedy Coordinate Gradient search (Zou et al. 2023), for reward models and for
language models' implicit rewards.

* :func:`gcg` (``run.py``): restarts, the verified result cache, progress; :class:`GCGResult`;
* ``objective.py``: the one signed objective (reward of prefix + response + suffix, read as the sweep engine reads
  it) and its gradient through the one-hot response;
* ``search.py``: one restart: top-k candidates, the decode->encode filter, the buffer of best sequences
  (:class:`GCGConfig`, :class:`Vocabulary`).
"""
from rmlib.engine.gcg.objective import DIRECTIONS, GCGError, Objective
from rmlib.engine.gcg.run import ALGORITHM, GCGResult, gcg
from rmlib.engine.gcg.search import GCGConfig, Vocabulary, run_restart

__all__ = ["gcg", "GCGResult", "GCGConfig", "GCGError", "DIRECTIONS", "ALGORITHM", "Objective", "Vocabulary",
           "run_restart"]
