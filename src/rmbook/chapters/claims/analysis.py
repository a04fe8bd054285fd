"""What replicates: every claim of the two papers (and of Razin et al.'s), the evidence this book computes for it,
and a verdict by rule.

Each chapter that tests a claim holds it in its own folder (``rmbook/chapters/<name>/claims.py``: the sentence it
tests, where the paper says it, the chapter and data that test it, the unit the claim is about, and the function that
judges its parts; ``claims.md.j2`` beside it words the evidence). The page only gathers and renders: what it reads
is derived from the chapters' claims (:func:`~rmbook.analysis.claims.all_claims`, found by the chapters' names), not
listed here. The rules, the evidence with provenance and the judging are the shared layer's
(:mod:`rmbook.analysis.claims`), re-exported here for the page's notebook and its tests; the page hands its renderer
to :func:`load_evidence` (``say=``: :func:`rmbook.report.brief.words`), since that layer may not import the report
layer.
"""
from rmbook.analysis.claims import (ALPHA, FACCT, ICLR, LEANS, MOST, MULTIPLE, OUTCOMES, RANK_BAND_SHARE, RAZIN, SIDES,
                                    TAU_BAND, TAU_HETEROGENEOUS, VERDICTS, Claim, Evidence, Missing, Node, Part, Ref,
                                    Said, SchemaError, all_claims, bh_floor, chance_p, chapter_claims, claimed_chapters,
                                    claims_table,
                                    equivalence_outcome, exact_two_group_floor, exists_outcome, follow, holm_adjusted,
                                    interval_outcome, load_evidence, monte_carlo_straddles, order_outcome,
                                    partly_lean, rank_band, rules_fields, share_outcome, source_chapters,
                                    test_outcome, threshold_outcome, under_control, verdict, verdict_shown)

__all__ = ["CLAIMS", "FACCT", "ICLR", "RAZIN", "chapter_claims", "claimed_chapters", "claims_table", "load_evidence", "source_chapters",
           "Evidence", "Missing", "Ref",
           "SchemaError", "Node", "follow",
           "Claim", "Part", "Said", "verdict", "rules_fields", "share_outcome", "test_outcome", "exists_outcome",
           "order_outcome", "threshold_outcome", "interval_outcome", "equivalence_outcome", "exact_two_group_floor",
           "bh_floor", "monte_carlo_straddles", "rank_band", "MOST", "ALPHA", "SIDES", "TAU_HETEROGENEOUS", "TAU_BAND",
           "RANK_BAND_SHARE", "MULTIPLE", "VERDICTS", "OUTCOMES", "LEANS", "partly_lean", "verdict_shown",
           "chance_p", "holm_adjusted", "under_control"]

CLAIMS: list[Claim] = list(all_claims())  # every chapter's claims, in the page's order
