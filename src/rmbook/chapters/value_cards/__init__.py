"""A value card of any RM: the value chapters' numbers for one model, placed among the ten paper RMs.

The chapter's files:

* ``analysis.py``: what the notebook calls;
* ``build.py``: scoring one model for its card and placing it among the ten paper RMs: the card's prompts and words,
  the paper RMs' released scores of the same ones, and the assembly of :class:`ValueCard` (:func:`card_from_scores`,
  which tests drive with planted scores; :func:`value_card`, which scores a model through the engine's cache);
* ``diff.py``: what changed between two value cards of the same kind, each change of a gap or a foundation's rank
  judged against the noise its prompts give (:func:`diff_cards`);
* ``gallery.py``: many value cards side by side (the "Value cards" page): each paper RM's card from its released
  scores, placed among the other nine by the same rule, the cards of computed models placed among all ten, one row per
  card that the page's table shows and its results store, and what training did to a base LM's card (an RM rmlib
  trained from it: the base's card and the RM's, diffed);
* ``measures.py``: a value card's numbers, each computed the same way for the card's model and for the ten paper RMs,
  on the long value-score table of :mod:`rmbook.analysis.values` (model, prompt_key, word, reward, category or
  foundation, valence): the agency − communion gap, each foundation's median rank, their bootstrap intervals over
  prompts, Kendall's τ within prompts, the ranks of single words, the framing chapter's two halves on the card's
  words, and the rule that places a number among the paper RMs';
* ``record.py``: the typed value card (``card.json``): a :class:`rmlib.storage.ChapterResults`, so a damaged or
  foreign file is refused when read, and every number the card's sentences and charts show is a field here;
* ``results.py``: builds the chapter's results (``chapter_results``);
* ``types.py``: the results type alone, which the claims page reads;
* ``prose.md.j2``: the chapter's sentences, one macro per paragraph;
* ``params.yaml``: the full-run values ``make book`` uses;
* ``params.test.yaml``: what the chapter's tests run it with.
"""
__all__ = []  # a folder of modules, each imported by its name
