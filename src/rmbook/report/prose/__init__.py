"""Findings in sentences (no number typed in by hand).

One mechanism for every chapter: ``render.py`` renders a paragraph from a Jinja template per chapter,
``templates/<chapter>.md.j2`` (one macro per paragraph), given sections of the chapter's results type, so a
chapter's sentences read as sentences in one file and the prose computes nothing. The templates:

* ``templates/method.md.j2``: a sweep's optimal and pessimal tokens, the round-trip audit, the id-exact vs
  paper-mode demo.
* ``templates/heterogeneity.md.j2``: what each run compares, how alike the models are, and what explains it.
* ``templates/distributions.md.j2``: what each run holds, how skewed the rewards are, what fills each tail.
* ``templates/identity_terms.md.j2``: the identity terms chapter: the terms, where RMs place identity items and
  words against people.
* ``templates/framing.md.j2``: what was scored, the slopes, each half of the claim, why lexicons differ.
* ``templates/mere_exposure.md.j2``: what was scored, slopes against shuffled baselines, the verdict per model,
  what an RM pays for beyond its base LM.
* ``templates/elo_misalignment.md.j2``: RMs against human ratings: agreement, the most over- and under-valued items
  and forms, the themes per prompt and pooled, how far ranks spread over models.
* ``templates/about.md.j2``: the about page: its prompt, items and RMs, and the range of agreement with people.
* ``templates/finetuning.md.j2``: the fine-tuning chapter: training, evaluation, the base imprint, the source
  ablation, trajectories, the durability of the base families' order, accuracy vs variance.
* ``templates/blinding.md.j2``: the blinding chapter: what the run asks, the answer tokens, how each model
  answers, the verdicts per condition, the paper's points.
* ``templates/good_teachers.md.j2``: the good_teachers chapter: what was compared, which RM teaches fastest,
  and whether Razin et al.'s claim replicates.
* ``templates/value_profiles.md.j2``: the value chapters (Big Two, MFD2; one template notebook): what was scored,
  the family tests' findings, which family ranks which category higher, LOVE or freedom, the three-way
  interaction, whether computed scores show the published pattern.
* ``templates/implicit_rewards.md.j2``: the implicit-rewards chapter: base or instruct, logits vs log-probs, LM
  vs RM answers, the lexicons' implicit rewards and their word-category contrasts.
* ``templates/beside.md.j2``: the paragraph a chapter run in compute mode adds to keep the paper RMs on its page
  (framing, mere_exposure, identity_terms, elo_misalignment).
* ``templates/claims.md.j2``: the claims page: what was read, the verdicts at a glance, each claim, and one macro
  per kind of evidence sentence (rendered from the fields each evaluator of :mod:`rmbook.chapters.claims.analysis`
  gives).
* ``templates/implicit_vs_explicit.md.j2``: the implicit_vs_explicit chapter: how both RMs were trained, accuracy
  per set, token reliance, DPO displacement, the verdict on the published pattern.
"""
from rmbook.report.prose.render import render

__all__ = ["render"]
