"""The good-teachers chapter's analysis (Razin et al. 2025): is an accurate reward model a good teacher?

Modules:

* ``dynamics.py``: exact policy-gradient dynamics over a finite response set, accuracy and reward variance;
* ``settings.py``: the response sets (EloEverything items, a policy's vocabulary) with their π_0;
* ``stats.py``: whether accuracy or variance predicts teaching speed across RMs, and the claim's verdict.

The names of ``dynamics.py`` are re-exported here, so ``teaching.<name>`` reads as before.
"""
from rmbook.chapters.good_teachers import dynamics, settings, stats
from rmbook.chapters.good_teachers.dynamics import (standardise, uniform_pi0, concentrated_pi0, effective_size,
                                                    reward_variance, pairwise_accuracy, sampled_accuracy, policy,
                                                    objective, gradient, curvature_bound, Trajectory, ascend,
                                                    kl_optimum, steps_to_gain, teaching_table, planted_teachers)

__all__ = ["dynamics", "settings", "stats", "standardise", "uniform_pi0", "concentrated_pi0", "effective_size",
           "reward_variance", "pairwise_accuracy", "sampled_accuracy", "policy", "objective", "gradient",
           "curvature_bound", "Trajectory", "ascend", "kl_optimum", "steps_to_gain", "teaching_table",
           "planted_teachers"]
