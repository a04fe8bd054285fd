"""Each chapter's results type: one module per chapter, each defining one :class:`rmlib.storage.ChapterResults`
subclass (its fields are what the chapter computed, typed) and one function that builds it from the chapter's
computed pieces, so the notebook's last cell is ``write_results(<module>.chapter_results(...), RESULTS_DIR)``.

The claims page, the chapter tests and :func:`result_type` find a chapter's type here by its name.

* ``by_chapter.py``: a chapter's results type, found by name (no table: a new chapter's type is found once its
  module is here), and :func:`chapters_with_results`;
* ``types/``: each results type alone, without its builders: what the claims page imports (no chapter's analysis);
* ``beside.py``: the compute-mode section that keeps the paper RMs on a chapter's page (framing, mere_exposure,
  identity_terms, elo_misalignment hold it);
* ``claims.py``: the claims page: the rules' thresholds, one row per claim, every part with its numbers' sources;
* ``method.py``: one sweep's best and worst token, the round-trip audit per model, the id-exact vs paper-mode demo;
* ``distributions.py``: the shape of each model's reward distribution, what fills its tails, what separates them;
* ``heterogeneity.py``: how far RMs' item rankings agree, and whether likeness follows base family or size;
* ``elo_misalignment.py``: RMs against people on EloEverything; the most over- and under-valued items and themes;
* ``identity_terms.py``: where RMs place items and words that name groups of people, against people's placement;
* ``framing.py``: per lexicon, each model's valence slopes and the two halves of the framing claim, with CIs;
* ``mere_exposure.py``: with valence fixed, how often an RM's score rises with word frequency; the verdict;
* ``value_profiles.py``: big_two and moral_foundations (one template): do Gemma- and Llama-based RMs differ;
* ``implicit_rewards.py``: logits vs log-probs, how common favourite answers are, the LMs' value contrasts;
* ``finetuning.py``: RMs trained here from each base on identical pairs, their base imprint, family durability;
* ``longer_answers.py``: published scores by answer length; GCG multi-token answers against one-token ones;
* ``good_teachers.py``: per setting, how fast each proxy RM teaches a policy, against its accuracy and variance;
* ``implicit_vs_explicit.py``: one EX-RM and one IM-RM trained alike: accuracy per set, IM - EX gaps, displacement;
* ``blinding.py``: whether hiding or neutralising an identity descriptor shrinks the gap in P(yes) between them.
"""
from rmbook.analysis.results.by_chapter import chapters_with_results, result_type, result_types

__all__ = ["chapters_with_results", "result_type", "result_types"]
