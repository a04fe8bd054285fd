"""What replicates: every claim of the two papers, the evidence this book computes for it, and a verdict by rule.

Each :class:`Claim` (``catalogue.py``) names the sentence it tests, where the paper says it, the chapter and data
that test it, and the unit the claim is about (models, cells, items, checkpoints). Its ``evaluate`` function reads
*only* numbers that the chapters wrote to their typed results, by attribute, through an :class:`Evidence` object
(``evidence.py``) that records every number it hands out with the chapter and the path it came from. Each part of a
claim gets an outcome by a stated rule, and the claim's verdict follows from its parts (``rules.py``). An evaluator
states its evidence as a :class:`Said` (which sentence, from which fields it computed); the sentence itself is worded by
``rmbook/chapters/claims/prose.md.j2``, whose renderer the page hands to :func:`load_evidence` (``say=``),
since this layer may not import the report layer.

The evaluate functions, one module per paper:

* ``facct.py``: the FAccT 2025 paper (optimal and pessimal tokens);
* ``iclr.py``: the ICLR 2026 paper (value biases inherited from pretraining; durability run by run);
* ``teaching.py``: Razin et al. 2025 on good teachers, from the good_teachers chapter;
* ``implicit_explicit.py``: Razin et al. on implicit vs explicit RMs and DPO's likelihood displacement.
"""
from rmbook.chapters.claims.catalogue import (CLAIMS, FACCT, ICLR, RAZIN, chapter_claims, claims_table, load_evidence,
                                              source_chapters)
from rmbook.chapters.claims.evidence import Evidence, Missing, Node, Ref, SchemaError, follow
from rmbook.chapters.claims.rules import (ALPHA, MOST, MULTIPLE, OUTCOMES, RANK_BAND_SHARE, SIDES, TAU_BAND,
                                          TAU_HETEROGENEOUS, VERDICTS, LEANS, Claim, Part, Said, bh_floor,
                                          equivalence_outcome, exact_two_group_floor, exists_outcome, interval_outcome,
                                          monte_carlo_straddles, order_outcome, rank_band, rules_fields, share_outcome,
                                          test_outcome, threshold_outcome, verdict, partly_lean,
                                          verdict_shown, chance_p, holm_adjusted, under_control)

__all__ = ["CLAIMS", "FACCT", "ICLR", "RAZIN", "chapter_claims", "claims_table", "load_evidence", "source_chapters",
           "Evidence", "Missing", "Ref",
           "SchemaError", "Node", "follow",
           "Claim", "Part", "Said", "verdict", "rules_fields", "share_outcome", "test_outcome", "exists_outcome",
           "order_outcome", "threshold_outcome", "interval_outcome", "equivalence_outcome", "exact_two_group_floor",
           "bh_floor", "monte_carlo_straddles", "rank_band", "MOST", "ALPHA", "SIDES", "TAU_HETEROGENEOUS", "TAU_BAND",
           "RANK_BAND_SHARE", "MULTIPLE", "VERDICTS", "OUTCOMES", "LEANS", "partly_lean", "verdict_shown",
           "chance_p", "holm_adjusted", "under_control"]
