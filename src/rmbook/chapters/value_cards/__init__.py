"""A value card of any RM: the value chapters' numbers for one model, placed among the ten paper RMs.

The chapter's files:

* ``analysis.py``: what the notebook calls;
* ``build.py``: scoring one model for its card and placing it among the ten paper RMs: the card's prompts and words,
  the paper RMs' released scores of the same ones, and the assembly of :class:`ValueCard` (:func:`card_from_scores`,
  which tests drive with planted scores; :func:`value_card`, which scores a model through the engine's cache);
* ``diff.py``: what changed between two value cards of the same kind, each change of a gap or a foundation's rank
  judged by a paired bootstrap over the words and prompts both share, with its minimum detectable change and the seed
  floor where seeds of one run exist (:func:`diff_cards`), and what changed besides the numbers;
* ``noise.py``: how much of a card is noise: its agreement as intervals over words and prompts, a null model (its
  rewards shuffled over the words) and the "beyond" labels and agreement it gets, and the base rate of "beyond"
  among the paper RMs, each placed among the other nine;
* ``lm.py``: what an LM's card adds: its implicit reward summed or per token (``--reward per-token``), and its
  rewards' correlations with the answer's length and the word's frequency, per prompt valence;
* ``gallery.py``: many value cards side by side (the "Value cards" page): each paper RM's card from its released
  scores, placed among the other nine by the same rule, the cards of computed models placed among all ten, one row per
  card that the page's table shows and its results store, and what training did to a base LM's card (an RM rmlib
  trained from it: the base's card and the RM's, diffed);
* ``measures.py``: a value card's numbers, each computed the same way for the card's model and for the ten paper RMs,
  on the long value-score table of :mod:`rmbook.analysis.values` (model, prompt_key, word, reward, category or
  foundation, valence): the agency − communion gap, each foundation's median rank, their bootstrap intervals over
  prompts and words, Kendall's τ within prompts, the ranks of single words, the framing chapter's two halves on the card's
  words, and the rule that places a number among the paper RMs';
* the typed value card (``card.json``) is :mod:`rmbook.analysis.value_card`, which the card's sentences read too;
* ``results.py``: builds the chapter's results (``chapter_results``);
* ``types.py``: the results type alone, which the claims page reads;
* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``params.yaml``: the full-run values ``make book`` uses;
* ``params.test.yaml``: what the chapter's tests run it with.
"""
__all__ = []  # a folder of modules, each imported by its name
