"""rmlib.analysis.claims.catalogue: planted results give the verdicts the rules say; every claim names its source."""
from __future__ import annotations

from rmlib.analysis import claims
from rmlib.analysis.claims import Evidence, verdict


def test_planted_results_give_the_verdicts_the_rules_say():
    framing = {"main_source": "afinn",
               "halves_summary": {"pos_prompts": {"holds": 10, "reversed": 0, "n": 10},
                                  "neg_prompts": {"holds": 0, "reversed": 9, "n": 10}},
               "cell_counts_by_half": [{"half": "pos_prompts", "n_congruent_steeper": 540, "n_cells": 540},
                                       {"half": "neg_prompts", "n_congruent_steeper": 3, "n_cells": 540}]}
    e = Evidence({"framing": framing})
    claim = next(c for c in claims.CLAIMS if c.key == "framing")
    parts = claim.evaluate(e)
    assert [p.outcome for p in parts] == ["holds", "fails"]
    assert verdict(parts)[0] == "partly"  # opposite halves are reported as such, not as "no effect"
    assert {r.path for p in parts for r in p.refs} >= {"halves_summary.pos_prompts.holds",
                                                       "cell_counts_by_half[half=neg_prompts].n_cells"}


def test_every_claim_names_its_source_and_unit():
    for c in claims.CLAIMS:
        assert c.stated_in and c.unit and c.test and c.chapters and c.paper in (claims.FACCT, claims.ICLR)
    assert len({c.key for c in claims.CLAIMS}) == len(claims.CLAIMS)
