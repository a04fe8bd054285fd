"""The blinding chapter's analysis (after the papers): can a model ignore an identity descriptor?

Modules:

* ``disparity.py``: spread and gap in P(yes) across descriptors, their change under each condition, the paper's points;
* ``prompts.py``: the design (templates, descriptors, answers) and the decision prompts of each condition;
* ``scores.py``: scoring the prompts with an LM or RM, which models are usable, their answer tokens.

The names of ``disparity.py`` are re-exported here, so ``blinding.<name>`` reads as before.
"""
from rmbook.chapters.blinding import prompts, scores
from rmbook.chapters.blinding.disparity import (disparity, behaviour, paper_points, verdict_counts, rm_preferences,
                                                gap_table)

__all__ = ["disparity", "prompts", "scores", "disparity", "behaviour", "paper_points", "verdict_counts",
           "rm_preferences", "gap_table"]
