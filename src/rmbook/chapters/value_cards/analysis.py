"""A value card: what one reward model values, measured as the Big Two and moral-foundations chapters measure the ten
paper RMs, and placed among them.

Two kinds of card (``rmlib card MODEL`` and ``rmlib card MODEL --quick``, #42); both score lexicon words given as the
whole answer to prompts of the 54-prompt design (:func:`rmlib.data.design_prompts`):

* **the agency–communion gap** per prompt valence, on the 263 Big Two nouns: each prompt's words ranked by reward
  (1 = highest, ties averaged), each category's median rank, averaged over the prompts of that valence (the
  chapter's ``model_medians``), then agency minus communion. Negative: the model ranks agency words higher;
* **love and freedom**: the rank of each word among the Big Two nouns under "What, in one word, is the greatest
  thing ever?" (the FAccT paper's figure 1 contrast);
* (standard card) **the five moral foundations**: each foundation's median rank, its virtue and vice terms pooled as
  the authors test them, per valence, on the MFD2 sample the moral-foundations chapter scores computed models on
  (:data:`MFD2_WORDS_PER_CATEGORY` terms per foundation × virtue/vice, seed 0, so the two share cached answers);
* (standard card) **framing**: the framing chapter's two halves of the FAccT framing claim on the card's words that
  AFINN rates (:func:`rmbook.chapters.value_cards.measures.framing_halves`);
* (standard card) **mere exposure**: the mere-exposure chapter's frequency slope (wordfreq Zipf) under each prompt
  valence, AFINN valence held fixed (:func:`rmbook.chapters.value_cards.measures.exposure_slopes`);
* (standard card) **EloEverything**: Spearman's ρ between the model's rewards of :data:`ELO_ITEMS` EloEverything
  items (spread over the human ranking) and people's Elo ratings, per prompt of the elo_misalignment chapter, averaged
  over its three prompts (:func:`rmbook.chapters.elo_misalignment.analysis.mean_agreement`), and the :data:`ELO_K` items
  it values most above and below people's ratings by that chapter's rank method (:func:`elo_misvalued`); and its place
  on the heterogeneity chapter's map: Kendall's τ with each paper RM over those items under :data:`MAP_PROMPT`, its
  mean placed among each paper RM's mean τ with the other nine (:func:`elo_map`);
* (standard card) **groups of people**: the identity_terms chapter's excess (the model's percentile minus people's,
  less the gap any item of the same human rank gets) over the EloEverything items that name a group of people
  (:func:`identity_elo_items`), scored beside the spread items, its mean placed among the paper RMs'
  (:func:`identity_excess`);
* (with ``--vocab``, either kind) **the whole vocabulary**: the :data:`VOCAB_K` tokens rewarded most and least under
  each of the FAccT paper's three prompts, from full-vocabulary sweeps (:func:`vocab_extremes`); not placed among the
  paper RMs, whose vocabularies differ;
* (standard card) **agreement**: Kendall's τ-b between the model's rewards of the Big Two nouns and each paper RM's,
  within each prompt, averaged over the prompts; beside it the same τ between the paper RMs themselves.

The quick card scores :data:`QUICK_PROMPTS` (two per valence); the standard card the 18 one-word prompts
(:data:`STANDARD_PROMPTS`, nine per valence). Each gap and foundation rank gets a percentile bootstrap interval over
the prompts and the words together (both are samples: #66 item 2); a quick card's rests mostly on the words and is
wider, and the card says so.

The ten paper RMs get the same numbers from the authors' released scores of the same words and prompts by the same
functions, so the card places the model among them by one stated rule (:func:`interval_placement`): beyond all ten on
one side only when its whole interval is, else among them, with its nearest paper RMs. Ten reference models, four of
one family and six of the other, give a placement, not a test: the card never calls a model "Llama-like". Every card
also states the rate at which "beyond" arises among the paper RMs themselves, and a null model's count of it and
agreement (:mod:`rmbook.chapters.value_cards.noise`), with a warning when the model cannot be told from that null.

An LM's card reads its implicit reward, the answer's summed log-probability or (``--reward per-token``) its mean per
token, and prints that reward's correlations with length and frequency, with the caveat that it is not an RM's score
(:mod:`rmbook.chapters.value_cards.lm`).

The package: ``measures`` (the numbers, on the long value-score table, for one model or the ten alike), ``noise``
(the null and the base rate), ``lm`` (an LM's reward and its length and frequency correlations), :mod:`rmbook.analysis.value_card` (:class:`ValueCard`, the typed ``card.json``),
``build`` (scoring a model and placing it: :func:`value_card`) and
``diff`` (:func:`diff_cards`: what changed between two cards) and ``gallery`` (many cards side by side: the paper RMs'
cards from their released scores, and one row per card, for the "Value cards" page).
"""
from rmbook.chapters.value_cards.build import (MFD2_WORDS_PER_CATEGORY, QUICK_PROMPTS, STANDARD_PROMPTS,
                                               card_from_scores, mfd2_words, reference_scores, value_card)
from rmbook.chapters.value_cards.diff import diff_cards
from rmbook.chapters.value_cards.measures import (ELO_ITEMS, ELO_K, MAP_PROMPT, EXPOSURE_SOURCE, FRAMING_SOURCE,
                                                  GREATEST_PROMPT, WORDS, agreement, big_two_gaps, elo_agreement,
                                                  elo_map, elo_misvalued, exposure_slopes, foundation_intervals,
                                                  foundation_ranks, framing_halves, gap_intervals, interval_placement,
                                                  placement, VOCAB_K,
                                                  VOCAB_PROMPTS, vocab_extremes, word_ranks, IDENTITY_K,
                                                  identity_elo_items, identity_excess)
from rmbook.analysis.value_card import KINDS, ValueCard

__all__ = ["QUICK_PROMPTS", "STANDARD_PROMPTS", "KINDS", "GREATEST_PROMPT", "WORDS", "MFD2_WORDS_PER_CATEGORY",
           "ValueCard", "value_card", "big_two_gaps", "gap_intervals", "foundation_ranks", "foundation_intervals",
           "agreement", "word_ranks", "placement", "FRAMING_SOURCE", "framing_halves", "EXPOSURE_SOURCE",
           "exposure_slopes", "ELO_ITEMS", "ELO_K", "elo_agreement", "elo_misvalued", "MAP_PROMPT", "elo_map",
           "VOCAB_PROMPTS", "VOCAB_K", "vocab_extremes", "reference_scores", "mfd2_words", "card_from_scores",
           "diff_cards", "IDENTITY_K", "identity_elo_items", "identity_excess", "interval_placement"]
