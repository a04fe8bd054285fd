"""The implicit-vs-explicit claims of Razin et al. on planted implicit_vs_explicit results: each verdict follows the
interval it quotes with the burden of proof on the same side whichever way the claim is phrased (an interval that
spans the null is not established, never a failure on one claim and a success on another), "comparable or better"
is judged against a stated margin, a source on which an RM is below chance is not counted as evidence, an untested
token shift is untestable rather than a failure, and every number shown is read."""
from __future__ import annotations

import pytest

from rmbook.chapters.claims import analysis as claims
from rmbook.chapters.claims.analysis import verdict
from rmbook.chapters.implicit_vs_explicit.claims import DOMAIN_MARGIN

KEYS = ("im_token_shift", "im_in_distribution", "im_domain_shift", "likelihood_displacement")


def _gap(s, g, lo, hi, n=150):
    return {"eval_set": s, "gap": g, "ci_low": lo, "ci_high": hi, "n": n}


def _results(drop=(0.04, -0.07, 0.13), in_dist=(-0.03, -0.12, 0.06), helpful=(0.13, 0.03, 0.23),
             uf=(0.04, -0.06, 0.14), changed=0.99, displaced=(-1.7, 0.05), held=(-1.46, -1.9, -1.0),
             below_chance=()):
    return {"sets": {"in_distribution": 150, "token_shift": 150, "domain:hh_rlhf_helpful": 150,
                     "domain:ultrafeedback": 150},
            "token_shift_changed": changed,
            "gaps": [_gap("domain:hh_rlhf_helpful", *helpful), _gap("domain:ultrafeedback", *uf),
                     _gap("in_distribution", *in_dist), _gap("token_shift", -0.07, -0.16, 0.04),
                     _gap("token_shift_drop", *drop)],
            "displacement": {"logratio_chosen_end": displaced[0], "margin_change": displaced[1]},
            "heldout_logratios": [{"completion": "chosen", "mean": held[0], "ci_low": held[1], "ci_high": held[2],
                                   "n": 150},
                                  {"completion": "rejected", "mean": -2.3, "ci_low": -2.8, "ci_high": -1.8, "n": 150}],
            "verdict": {"below_chance": [{"rm": rm, "eval_set": s, "accuracy": a, "ci_low": lo, "ci_high": hi}
                                         for rm, s, a, lo, hi in below_chance]}}


@pytest.fixture
def evaluate(planted):
    """``evaluate(results)``: every implicit-vs-explicit claim's parts over planted typed results (None: no file)."""
    return lambda results: _evaluate(planted, results)


def _evaluate(planted, results) -> dict:
    e = planted({"implicit_vs_explicit": results})
    e.reasons = {"implicit_vs_explicit": "implicit_vs_explicit.json not found"}
    return {c.key: c.evaluate(e) for c in claims.CLAIMS if c.key in KEYS}


def _outcome(evaluate, key, **kw) -> str:
    parts = evaluate(_results(**kw))[key]
    assert len(parts) == 1
    return parts[0].outcome


def _mirror(iv, about=0.0):
    """The interval reflected about ``about``: the same width, on the other side."""
    g, lo, hi = iv
    return (2 * about - g, 2 * about - hi, 2 * about - lo)


def test_the_full_runs_intervals_give_these_verdicts(evaluate):
    parts = evaluate(_results())
    # the drop difference's interval spans 0: not established (the chapter says the same), not a failure
    assert verdict(parts["im_token_shift"])[0] == "not established"
    assert "+0.040 [-0.070, +0.130] over 150 pairs" in parts["im_token_shift"][0].evidence
    assert "changed 99% of them" in parts["im_token_shift"][0].evidence
    assert "spans 0: not established" in parts["im_token_shift"][0].evidence
    assert verdict(parts["im_in_distribution"])[0] == "not established"
    # HH-helpful lies above -0.05, UltraFeedback spans it: 1 of 2 sources, partly (it was "replicates" when
    # any interval not below 0 counted as comparable)
    assert verdict(parts["im_domain_shift"])[0] == "partly"
    assert ("hh_rlhf_helpful +0.130 [+0.030, +0.230]: above −0.05: comparable or better; ultrafeedback +0.040 "
            "[-0.060, +0.140]: spans −0.05: not established" in parts["im_domain_shift"][0].evidence)
    assert verdict(parts["likelihood_displacement"])[0] == "replicates"
    refs = {r.path for p in parts["likelihood_displacement"] for r in p.refs}
    assert refs >= {"displacement.logratio_chosen_end", "heldout_logratios.where(completion='chosen').ci_high"}
    assert "gaps.where(eval_set='domain:ultrafeedback').ci_low" in {r.path for r in parts["im_domain_shift"][0].refs}


@pytest.mark.parametrize("kw, key, expected", [
    (dict(drop=(0.12, 0.03, 0.21)), "im_token_shift", "holds"),
    (dict(drop=(0.04, -0.07, 0.13)), "im_token_shift", "not established"),
    (dict(drop=(-0.12, -0.21, -0.03)), "im_token_shift", "fails"),
    (dict(in_dist=(-0.1, -0.18, -0.02)), "im_in_distribution", "holds"),
    (dict(in_dist=(-0.03, -0.12, 0.06)), "im_in_distribution", "not established"),
    (dict(in_dist=(0.1, 0.02, 0.18)), "im_in_distribution", "fails"),
    # domain shift, per source against -0.05, then the share rule over the two sources
    (dict(uf=(0.04, -0.03, 0.11)), "im_domain_shift", "holds"),               # 2 of 2 above -0.05
    (dict(uf=(0.04, -0.15, 0.23)), "im_domain_shift", "mixed"),               # 1 of 2, the other too wide
    (dict(uf=(0.0, -0.2, 0.2), helpful=(0.0, -0.2, 0.2)), "im_domain_shift", "not established"),  # both too wide
    (dict(uf=(-0.15, -0.24, -0.06)), "im_domain_shift", "mixed"),            # 1 comparable, 1 worse
    (dict(uf=(-0.15, -0.24, -0.06), helpful=(-0.15, -0.24, -0.06)), "im_domain_shift", "fails"),
])
def test_each_rule_gives_each_outcome(evaluate, kw, key, expected):
    assert _outcome(evaluate, key, **kw) == expected


@pytest.mark.parametrize("key, arg, claimed, null", [
    ("im_token_shift", "drop", "above", 0.0),
    ("im_in_distribution", "in_dist", "below", 0.0),
    ("im_domain_shift", "uf", "above", -DOMAIN_MARGIN),
])
@pytest.mark.parametrize("offset", [0.02, 0.09])  # the interval's centre this far from the null: clear or spanning
def test_the_same_interval_on_either_side_gives_the_same_kind_of_outcome(evaluate, key, arg, claimed, null, offset):
    """An interval of half-width 0.07 centred `offset` from the null on the claimed side, and its mirror image on the
    other: spanning, both are not established; clear of the null, one holds and the other fails. For the domain
    claim the null is -margin, and both sources get the same interval so the share rule cannot hide a source."""
    sign = 1 if claimed == "above" else -1
    c = null + sign * offset
    claimed_side, other_side = (c, c - 0.07, c + 0.07), _mirror((c, c - 0.07, c + 0.07), null)
    def run(iv):
        kw = {arg: iv, "helpful": iv} if key == "im_domain_shift" else {arg: iv}
        return _outcome(evaluate, key, **kw)
    if offset < 0.07:
        assert run(claimed_side) == run(other_side) == "not established"
    else:
        assert (run(claimed_side), run(other_side)) == ("holds", "fails")


def test_a_token_shift_and_a_domain_interval_of_equal_width_spanning_zero_get_the_same_verdict(evaluate):
    iv = (0.03, -0.07, 0.13)
    parts = evaluate(_results(drop=iv, uf=iv, helpful=iv))
    assert verdict(parts["im_token_shift"])[0] == verdict(parts["im_domain_shift"])[0] == "not established"


def test_comparable_needs_the_interval_above_the_stated_margin(evaluate):
    assert DOMAIN_MARGIN == 0.05
    inside = evaluate(_results(uf=(0.08, -0.04, 0.2)))["im_domain_shift"][0]
    past = evaluate(_results(uf=(0.07, -0.06, 0.2)))["im_domain_shift"][0]
    assert inside.outcome == "holds" and past.outcome == "mixed"
    assert "ultrafeedback +0.070 [-0.060, +0.200]: spans −0.05: not established" in past.evidence
    assert "against the margin −0.05" in past.evidence and "(1 of 2 comparable or better, 0 worse)" in past.evidence
    test = next(c.test for c in claims.CLAIMS if c.key == "im_domain_shift")
    assert "non-inferiority margin of 0.05 accuracy" in test and "above −0.05" in test and "below −0.05" in test


def test_a_source_where_an_rm_is_below_chance_is_not_counted(evaluate):
    """HH-helpful: the IM-RM +0.10 clear of the margin, but the EX-RM at 0.353 (below chance): the labels there run
    against what training taught, so the source is not established and the claim rests on UltraFeedback alone."""
    low, uf = [("EX-RM", "domain:hh_rlhf_helpful", 0.353, 0.28, 0.43)], (0.04, -0.03, 0.11)
    assert _outcome(evaluate, "im_domain_shift", helpful=(0.10, 0.02, 0.18), uf=uf) == "holds"
    part = evaluate(_results(helpful=(0.10, 0.02, 0.18), uf=uf, below_chance=low))["im_domain_shift"][0]
    assert part.outcome == "mixed" and verdict([part])[0] == "partly"
    assert "verdict.below_chance[0].accuracy" in {r.path for r in part.refs}  # the flag's numbers are read
    assert ("hh_rlhf_helpful +0.100 [+0.020, +0.180]: not established, below chance there (EX-RM 0.353 [0.280, "
            "0.430])" in part.evidence)
    assert "(1 of 2 comparable or better, 0 worse)" in part.evidence
    # a below-chance source is not counted against the claim either
    worse = evaluate(_results(helpful=(-0.15, -0.24, -0.06), uf=uf, below_chance=low))["im_domain_shift"][0]
    assert worse.outcome == "mixed" and "0 worse" in worse.evidence
    both = [*low, ("IM-RM", "domain:ultrafeedback", 0.42, 0.35, 0.49)]
    assert _outcome(evaluate, "im_domain_shift", helpful=(0.10, 0.02, 0.18), uf=uf,
                    below_chance=both) == "not established"


@pytest.mark.parametrize("kw, expected, says", [
    (dict(displaced=(0.4, 0.05), held=(0.3, 0.1, 0.5)), "not established",
     ["+0.40 nats (batch means) while the margin changed by +0.050: no displacement in this run",
      "[+0.10, +0.50]: more likely than under the reference (the interval lies above 0), so no displacement there"]),
    (dict(held=(-0.2, -0.6, 0.2)), "partly",  # training yes, held-out not shown
     ["-1.70 nats (batch means) while the margin changed by +0.050: displacement in this run",
      "[-0.60, +0.20]: the interval spans 0, so displacement is not shown there"]),
    (dict(), "replicates", ["[-1.90, -1.00]: less likely than under the reference (the interval lies below 0)"]),
])
def test_displacement_not_shown_is_not_established_and_says_so(evaluate, kw, expected, says):
    parts = evaluate(_results(**kw))["likelihood_displacement"]
    assert verdict(parts)[0] == expected
    text = " | ".join(p.evidence for p in parts)
    for s in says:
        assert s in text


def test_an_untouched_token_shift_is_untestable_and_a_missing_chapter_is_not_testable(evaluate):
    part = evaluate(_results(changed=0.0))["im_token_shift"][0]
    assert part.outcome == "untestable" and "changed none" in part.evidence
    for key, parts in evaluate(None).items():
        assert verdict(parts)[0] == "not testable here", key
        assert all("implicit_vs_explicit.json not found" in p.evidence for p in parts)


def test_every_claim_reads_only_the_implicit_vs_explicit_chapter():
    for c in claims.CLAIMS:
        if c.key in KEYS:
            assert c.chapters == ("implicit_vs_explicit",) and c.paper == claims.RAZIN and "Razin" in c.stated_in
    assert claims.source_chapters()[-1] == "implicit_vs_explicit"
