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
        assert c.stated_in and c.unit and c.test and c.chapters and c.paper in (claims.FACCT, claims.ICLR, claims.RAZIN)
    assert len({c.key for c in claims.CLAIMS}) == len(claims.CLAIMS)


def _good_teachers(var_verdicts: dict, n_slower: int, accurate_gain=0.01, noisy_gain=0.2) -> dict:
    """A good_teachers results file in miniature: the replication block, the correlations it summarises, the
    planted case."""
    yes = [s for s, v in var_verdicts.items() if v == "predicts"]
    return {"parameters": {"subset_size": 500}, "replication": {"published": {
        "n_slower_more_accurate": n_slower, "variance_predicts_under": yes,
        "variance_does_not_predict_under": [s for s in var_verdicts if s not in yes],
        "accuracy_predicts_under": [], "reward_max_predicts_under": []}},
        "correlations": {"published": [
            {"predictor": "variance_pi0", "outcome": "gain_T", "stratum": s, "rho": 0.8 if v == "predicts" else -0.7,
             "ci_low": 0.2 if v == "predicts" else -0.9, "ci_high": 0.9, "verdict": v}
            for s, v in var_verdicts.items()]},
        "planted": [{"model": "accurate", "gain_T": accurate_gain}, {"model": "noisy", "gain_T": noisy_gain}]}


def _razin(results) -> dict:
    e = Evidence({"good_teachers": results}, {"good_teachers": "good_teachers.json not found in /x"})
    return {c.key: c.evaluate(e) for c in claims.CLAIMS if c.chapters == ("good_teachers",)}


def test_good_teachers_results_give_a_computed_verdict_for_razin_et_al():
    parts = _razin(_good_teachers({"random 500": "predicts the opposite", "top 500 of R-Gem-2B": "predicts"}, 54))
    acc, var = parts["accuracy_not_speed"], parts["low_variance_slow"]
    assert [p.outcome for p in acc] == ["holds", "holds"] and acc[1].context
    assert verdict(acc)[0] == "replicates" and "in 54 pairs" in acc[0].evidence
    assert var[0].outcome == "mixed" and verdict(var)[0] == "partly"  # predicts under one π_0, the opposite under one
    assert "top 500 of R-Gem-2B: +0.80 [+0.20, +0.90] (predicts)" in var[0].evidence
    assert "holds 500 items" in var[0].evidence  # every number shown is one the chapter wrote
    assert {r.path for r in var[0].refs} >= {"replication.published.variance_predicts_under"}
    everywhere = _razin(_good_teachers({"random 500": "predicts", "top 500 of R-Gem-2B": "predicts"}, 0, 0.3, 0.1))
    assert verdict(everywhere["low_variance_slow"])[0] == "replicates"
    assert verdict(everywhere["accuracy_not_speed"])[0] == "does not"   # no such pair (the planted case is context)


def test_razin_claims_say_not_computed_in_this_run_without_good_teachers_results():
    for results in (None, {"replication": {}, "correlations": {}, "planted": []}):
        for key, parts in _razin(results).items():
            assert all(p.outcome == "untestable" and p.evidence.startswith("not computed in this run") for p in parts)
            assert verdict(parts)[0] == "not testable here", key
    assert "good_teachers.json not found" in _razin(None)["low_variance_slow"][0].evidence
