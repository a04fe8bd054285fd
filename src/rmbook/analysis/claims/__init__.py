"""How the book judges a paper's claim, shared by every chapter that tests one and by the claims page.

Each chapter holds its own claims in its folder's ``claims.py`` (with their evidence sentences in ``claims.md.j2``
beside it); this package holds what they share:

* ``rules.py``: how a claim gets a verdict: one vocabulary of outcomes, the rules that give a part its outcome
  (share, test, interval, equivalence, order, threshold, existence), the page's error control and the rule from parts
  to a verdict;
* ``evidence.py``: evidence with provenance: every number a claim uses is read from a chapter's typed results by
  attribute, through :class:`Evidence`, which records the chapter and the path of each number it hands out;
* ``papers.py``: the papers' labels and the order the page lists them in;
* ``catalogue.py``: the chapters' claims gathered by name (:func:`all_claims`, :func:`chapter_claims`), the results
  they read, and a claim judged both uncorrected and under error control (:func:`claims_table`);
* ``shown.py``: a claim as a page shows it (the claims page and a chapter's "In brief").
"""
from rmbook.analysis.claims.catalogue import (all_claims, chapter_claims, claimed_chapters, claims_table, judge,
                                              load_evidence, source_chapters)
from rmbook.analysis.claims.evidence import (Evidence, Missing, Node, Ref, SchemaError, Say, evaluate_part, fdr_floor,
                                             follow, untestable)
from rmbook.analysis.claims.shown import ClaimShown, PartShown, claim_shown
from rmbook.analysis.claims.papers import FACCT, FACCT_ABSTRACT, ICLR, ICLR_ABSTRACT, PAPERS, RAZIN
from rmbook.analysis.claims.rules import (ALPHA, EXISTENCE, LEANS, MOST, MULTIPLE, OUTCOMES, RANK_BAND_SHARE, SIDES,
                                          TAU_BAND, TAU_HETEROGENEOUS, VERDICTS, Claim, Part, Said, bh_floor,
                                          chance_p, equivalence_outcome, exact_two_group_floor, exists_outcome,
                                          holm_adjusted, interval_outcome, monte_carlo_straddles, order_outcome,
                                          partly_lean, rank_band, rules_fields, said, sentences, share_outcome,
                                          test_outcome, threshold_outcome, under_control, verdict, verdict_shown,
                                          VERDICT_WORDS)

__all__ = ["all_claims", "chapter_claims", "claimed_chapters", "claims_table", "judge", "load_evidence",
           "source_chapters", "ClaimShown", "PartShown", "claim_shown", "Evidence", "Missing", "Node", "Ref", "SchemaError", "Say", "evaluate_part",
           "fdr_floor", "follow", "untestable", "FACCT", "FACCT_ABSTRACT", "ICLR", "ICLR_ABSTRACT", "PAPERS", "RAZIN",
           "ALPHA", "EXISTENCE", "LEANS", "MOST", "MULTIPLE", "OUTCOMES", "RANK_BAND_SHARE", "SIDES", "TAU_BAND",
           "TAU_HETEROGENEOUS", "VERDICTS", "Claim", "Part", "Said", "bh_floor", "chance_p", "equivalence_outcome",
           "exact_two_group_floor", "exists_outcome", "holm_adjusted", "interval_outcome", "monte_carlo_straddles",
           "order_outcome", "partly_lean", "rank_band", "rules_fields", "said", "sentences", "share_outcome",
           "test_outcome", "threshold_outcome", "under_control", "verdict", "verdict_shown", "VERDICT_WORDS"]
