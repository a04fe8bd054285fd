"""rmlib.analysis.results.claims: the page's results keep every part's numbers with the steps that lead back to
them in the chapter's own results."""
from __future__ import annotations

import json

from rmlib.analysis import claims
from rmlib.analysis.results import claims as results
from rmlib.analysis.results.heterogeneity import HeterogeneityResults
from rmlib.storage import read_results, write_results


def _het() -> HeterogeneityResults:
    pm = {"design": "same base family", "given": "similar size", "r": 0.27, "p": 0.05, "r_design": 0.59,
          "r_given_design": 0.62, "n_models": 10}
    agreement = {"name": "published", "tau_min": 0.1, "tau_median": 0.4, "tau_max": 0.8, "least_alike": ["a", "b"],
                 "most_alike": ["a", "c"], "tau_shuffled_low": -0.02, "tau_shuffled_high": 0.02,
                 "rbo_top_median": 0.5, "rbo_bottom_median": 0.5, "rbo_shuffled_mean": 0.1, "rbo_gap": 0.0,
                 "agree_more_at_top": False}
    designs = {"name": "published", "status": "tested", "n_models": 10, "skipped": [], "alpha": 0.05,
               "best_design": "similar size", "best_r": 0.72, "best_p": 0.001, "best_n_models": 10, "verdict": "match",
               "base_given_size": pm, "size_given_base": None, "base_confounded": False, "designs_overlap": True}
    run = {"models": ["a"], "reward_kinds": {"a": "RM score"}, "n_items": 5, "floor": [], "rsa": [], "kendall": {},
           "partial_mantels": [pm, {**pm, "design": "similar size", "given": "same base family", "r": 0.55}],
           "about": {"name": "published", "n_models": 10, "what": "items", "n_implicit": 0},
           "agreement": agreement, "mds": {"name": "published", "first_axis": 0.5, "second_axis": 0.2},
           "designs": designs}
    return HeterogeneityResults(mode="published", runs={"published": run})


def test_the_page_results_lead_back_to_each_number(tmp_path):
    het = _het()
    e = claims.Evidence({c: (het if c == "heterogeneity" else None) for c in claims.source_chapters()})
    table, parts = claims.claims_table(e)
    out = results.chapter_results(["heterogeneity"], table, parts)
    write_results(out, tmp_path)
    back = read_results("claims", tmp_path, results.ClaimsResults)
    assert back == out and back.rules["MOST"] == claims.MOST
    refs = [r for p in back.parts["heterogeneity"] for r in p.refs]
    assert len(refs) >= 8
    stored = json.loads(json.dumps(het.model_dump(mode="json")))
    for r in refs:
        assert claims.follow(stored, r.steps) == r.value, r.path
    assert any(r.path == "runs['published'].partial_mantels.where(design='similar size', given='same base family').r"
               for r in refs)
    assert all(p.outcome == "untestable" for p in back.parts["big_two"])
