"""The implicit-vs-explicit claims of Razin et al. on planted implicit_vs_explicit results: each verdict follows the
interval it quotes, an untested token shift is untestable rather than a failure, and every number shown is read."""
from __future__ import annotations

import pytest

from rmlib.analysis import claims
from rmlib.analysis.claims import Evidence, verdict

KEYS = ("im_token_shift", "im_in_distribution", "im_domain_shift", "likelihood_displacement")


def _gap(s, g, lo, hi, n=150):
    return {"eval_set": s, "gap": g, "ci_low": lo, "ci_high": hi, "n": n}


def _results(drop=(0.04, -0.07, 0.13), in_dist=(-0.03, -0.12, 0.06), helpful=(0.13, 0.03, 0.23),
             uf=(0.04, -0.06, 0.14), changed=0.99, displaced=(-1.7, 0.05), held=(-1.46, -1.9, -1.0)):
    return {"sets": {"in_distribution": 150, "token_shift": 150, "domain:hh_rlhf_helpful": 150,
                     "domain:ultrafeedback": 150},
            "token_shift_changed": changed,
            "gaps": [_gap("domain:hh_rlhf_helpful", *helpful), _gap("domain:ultrafeedback", *uf),
                     _gap("in_distribution", *in_dist), _gap("token_shift", -0.07, -0.16, 0.04),
                     _gap("token_shift_drop", *drop)],
            "displacement": {"logratio_chosen_end": displaced[0], "margin_change": displaced[1]},
            "heldout_logratios": [{"completion": "chosen", "mean": held[0], "ci_low": held[1], "ci_high": held[2],
                                   "n": 150},
                                  {"completion": "rejected", "mean": -2.3, "ci_low": -2.8, "ci_high": -1.8, "n": 150}]}


def _evaluate(results) -> dict:
    e = Evidence({"implicit_vs_explicit": results}, {"implicit_vs_explicit": "implicit_vs_explicit.json not found"})
    return {c.key: c.evaluate(e) for c in claims.CLAIMS if c.key in KEYS}


def test_the_full_runs_intervals_give_these_verdicts():
    parts = _evaluate(_results())
    assert verdict(parts["im_token_shift"])[0] == "does not"  # the drop difference's interval spans 0
    assert "+0.040 [-0.070, +0.130] over 150 pairs" in parts["im_token_shift"][0].evidence
    assert "changed 99% of them" in parts["im_token_shift"][0].evidence
    assert verdict(parts["im_in_distribution"])[0] == "does not"
    assert verdict(parts["im_domain_shift"])[0] == "replicates"  # no source's interval lies below 0
    assert "hh_rlhf_helpful +0.130 [+0.030, +0.230]; ultrafeedback" in parts["im_domain_shift"][0].evidence
    assert verdict(parts["likelihood_displacement"])[0] == "replicates"
    refs = {r.path for p in parts["likelihood_displacement"] for r in p.refs}
    assert refs >= {"displacement.logratio_chosen_end", "heldout_logratios[completion=chosen].ci_high"}


@pytest.mark.parametrize("kw, key, expected", [
    (dict(drop=(0.12, 0.03, 0.21)), "im_token_shift", "replicates"),
    (dict(in_dist=(-0.1, -0.18, -0.02)), "im_in_distribution", "replicates"),
    (dict(uf=(-0.1, -0.2, -0.01)), "im_domain_shift", "partly"),     # one of two sources clearly worse: mixed
    (dict(uf=(-0.1, -0.2, -0.01), helpful=(-0.1, -0.2, -0.01)), "im_domain_shift", "does not"),
    (dict(displaced=(0.4, 0.05), held=(0.3, 0.1, 0.5)), "likelihood_displacement", "does not"),
    (dict(held=(-0.2, -0.6, 0.2)), "likelihood_displacement", "partly"),  # training yes, held-out not shown
])
def test_verdicts_follow_the_intervals(kw, key, expected):
    assert verdict(_evaluate(_results(**kw))[key])[0] == expected


def test_an_untouched_token_shift_is_untestable_and_a_missing_chapter_is_not_testable():
    part = _evaluate(_results(changed=0.0))["im_token_shift"][0]
    assert part.outcome == "untestable" and "changed none" in part.evidence
    for key, parts in _evaluate(None).items():
        assert verdict(parts)[0] == "not testable here", key
        assert all("implicit_vs_explicit.json not found" in p.evidence for p in parts)


def test_every_claim_reads_only_the_implicit_vs_explicit_chapter():
    for c in claims.CLAIMS:
        if c.key in KEYS:
            assert c.chapters == ("implicit_vs_explicit",) and c.paper == claims.RAZIN and "Razin" in c.stated_in
    assert claims.source_chapters()[-1] == "implicit_vs_explicit"
