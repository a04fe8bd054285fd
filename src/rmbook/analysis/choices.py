"""The closed sets of choices that a chapter's analysis takes and its results type validates: run modes, how
EloEverything ranks are aggregated, framing's response scales, the two halves of its claim and the four cells of
its contrast (word side × prompt valence), which the framing and mere-exposure charts draw.

They live here, below both, so a results type (:mod:`rmbook.analysis.results.types`) can name them without importing
the chapter's analysis: the claims page reads every chapter's typed results, and its stamp then depends on the types,
not on every chapter's analysis code (:mod:`rmbook.book.imported`).
"""
from __future__ import annotations

__all__ = ["PUBLISHED_OR_COMPUTE", "ANY_MODE", "AGGREGATES", "RESPONSES", "FRAMING_HALVES", "HALF_WORDS",
           "SLOPE_CELLS"]

PUBLISHED_OR_COMPUTE = ("published", "compute")  # the authors' released scores, or fresh ones from rmlib
ANY_MODE = ("published", "compute", "both")      # ... or both, side by side
AGGREGATES = ("median", "mean")                  # how a model's ranks of an EloEverything item are aggregated
RESPONSES = ("z", "rank")                        # framing's response scale: z-scored reward or within-prompt rank
FRAMING_HALVES = {"pos_prompts": "positive prompts: more sensitive to positive words",
                  "neg_prompts": "negative prompts: more sensitive to negative words"}
HALF_WORDS = {"pos_prompts": "h+ (positive prompts)", "neg_prompts": "h− (negative prompts)"}  # a table's row labels
SLOPE_CELLS = {"s_pp": ("positive", "positive"), "s_pn": ("positive", "negative"),  # column: (word side,
               "s_np": ("negative", "positive"), "s_nn": ("negative", "negative")}  # prompt valence)
