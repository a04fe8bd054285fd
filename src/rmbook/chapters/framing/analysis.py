"""The framing chapter's analysis (FAccT 2025): does the prompt's valence change which words an RM is sensitive to?

Modules:

* ``contrast.py``: the four oriented valence slopes per model, the two halves of the contrast and each word's share of
  them;
* ``sources.py``: the claim under several affect lexicons, prompt by prompt, and which words decide it.

The names of ``contrast.py`` are re-exported here, so ``framing.<name>`` reads as before.
"""
from rmbook.chapters.framing import contrast, sources
from rmbook.chapters.framing.contrast import (framing_frame, framing_cell_slopes, framing_cell_counts,
                                              framing_contrast, FRAMING_HALVES, framing_halves,
                                              framing_halves_summary, framing_word_influence, influential_words,
                                              dictionary_word_counts)

__all__ = ["contrast", "sources", "framing_frame", "framing_cell_slopes", "framing_cell_counts", "framing_contrast",
           "FRAMING_HALVES", "framing_halves", "framing_halves_summary", "framing_word_influence",
           "influential_words", "dictionary_word_counts"]
