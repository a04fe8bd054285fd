"""The course edition's exercises (layer 6): checks that tell a student whether the function they wrote is right.

Modules:

* ``exercises.py``: the catalogue of exercises (labels, checks) and :func:`check`, which a check cell calls;
* one module of checks per chapter, named after it (each line below belongs to that module's author):
  ``heterogeneity.py``: Kendall's τ-b on ties, a noise floor by shuffling;
  ``elo_misalignment.py``: each item's consensus rank difference (human rank − model rank, median over models);
  ``method.py``: the decode → re-encode round trip of token ids, the id-exact ids an RM scores (one BOS);
  ``implicit_rewards.py``: an answer's summed log-probability from logits, the mixture-weighted log ratio;
  ``longer_answers.py``: the gradient through the one-hot response, GCG's top-k candidates in both directions;
  ``finetuning.py``: the Bradley-Terry loss of preference pairs (stable for any margin) and pairwise accuracy;
  ``good_teachers.py``: reward variance under π_0, one step of KL-regularised policy gradient;
  ``implicit_vs_explicit.py``: DPO's implicit reward of a chosen and a rejected completion, the margin;
  ``distributions.py``: the adjusted Fisher-Pearson skewness, its percentile bootstrap CI;
  ``framing.py``: the claim's two halves from four oriented slopes, a model's verdict on them from their CIs;
  ``mere_exposure.py``: the Zipf frequency slope with valence held fixed;
  ``identity_terms.py``: the gap expected at an item's human rank (the mean gap of its equal-width bin);
  ``big_two.py``: the median within-prompt rank of each category, a permutation test over models;
  ``moral_foundations.py``: Hedges' g between two families' model-level median ranks (the exact correction);
  ``blinding.py``: the gap in P(yes) between descriptors, a paired bootstrap interval for its change;

The notebooks mark each exercise's cells in their metadata; :mod:`rmbook.book.course` builds the student and instructor
editions from them (``make course``).
"""
from rmbook.course.exercises import CheckFailed, Exercise, Passed, catalogue, check, close, exercise, expect

__all__ = ["CheckFailed", "Exercise", "Passed", "catalogue", "check", "close", "exercise", "expect"]
