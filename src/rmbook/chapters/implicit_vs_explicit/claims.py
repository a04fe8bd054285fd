"""The claims of Razin et al. on implicit and explicit reward models, judged from this chapter's results (their
evidence sentences are the macros of ``claims.md.j2`` beside this file; the claims page gathers ``CLAIMS`` by the
chapter's name).

Two papers: *Why is Your Language Model a Poor Implicit Reward Model?* (the IM-RM generalises worse under token-level
shifts and in distribution, comparably or better under domain shifts) and *Unintentional Unalignment: Likelihood
Displacement in DPO* (DPO can make the preferred response less likely while the margin grows). The chapter trains one
EX-RM and one IM-RM from one base on identical pairs, so each interval here is over pairs: a verdict is about these two
RMs, which the claims' unit says; a statement about kinds of RMs needs more bases and seeds.

Every rule puts the burden of proof on the same side whichever way the claim is phrased. The token-shift and
in-distribution claims use the interval rule (holds on the claimed side of 0, fails on the other, not established
when the interval spans 0). "Comparably or better" under domain shifts is a non-inferiority claim, so it needs a
margin (:data:`DOMAIN_MARGIN`) and uses the equivalence rule with that margin: a source is comparable or better
when its IM − EX interval lies above −margin, worse when it lies below −margin, and not established otherwise. A
source on which either RM is below chance (the chapter's ``verdict.below_chance``) has labels that run against what
training taught, so there a higher IM-RM accuracy can mean that it learnt less of the training preference: such a
source is not established, whatever its interval.
"""
from __future__ import annotations

from rmbook.analysis.claims import (EXISTENCE, RAZIN, Claim, Evidence, Part, equivalence_outcome, evaluate_part,
                                    exists_outcome, interval_outcome, sentences, share_outcome)

__all__ = ["CLAIMS", "IVE", "POOR_IMPLICIT", "DISPLACEMENT", "DOMAIN_MARGIN"]

said = sentences("implicit_vs_explicit")  # this chapter's evidence sentences: the macros of claims.md.j2 beside it

IVE = "implicit_vs_explicit"
POOR_IMPLICIT = ("Razin, Lin, Yao & Arora 2025, Why is Your Language Model a Poor Implicit Reward Model? "
                 "(arXiv 2507.07981), abstract")
DISPLACEMENT = ("Razin, Malladi, Bhaskar, Chen, Arora & Hu, ICLR 2025, Unintentional Unalignment: Likelihood "
                "Displacement in Direct Preference Optimization")
_DATA = ("one EX-RM (Bradley–Terry) and one IM-RM (DPO) trained here from one embedded base on identical pairs, "
         "order and steps; held-out pairs, their meaning-preserving rewrites, and other preference sources")
_UNIT = "pairs, for one IM-RM and one EX-RM"

#: Non-inferiority margin for "comparably or better" under a domain shift, in pairwise accuracy (IM − EX). An IM-RM
#: less than 5 points of accuracy behind the EX-RM is one a reader would still call comparable: 5 points are a tenth
#: of the way from chance (0.5) to perfect (1.0). It is chosen on what accuracy means, not tuned to the results, and
#: the page states it (in the claim's test).
#: Without a margin, "not significantly worse" would count as comparable, so an interval too wide to tell anything
#: would support the claim: the burden of proof on the other side from the token-shift and in-distribution claims.
DOMAIN_MARGIN = 0.05


def _part(name: str, e: Evidence, fn, **kw) -> Part:
    """A part of these claims: RMs trained here from an embedded base, so its support is replication."""
    return evaluate_part(name, e, fn, support="replication", **kw)


def _interval(e: Evidence, eval_set: str) -> tuple[float, float, float, int]:
    g = e.of(IVE).gaps.where(eval_set=eval_set)
    return g.gap, g.ci_low, g.ci_high, g.n


def _token_shift(e: Evidence) -> list[Part]:
    def fn():
        changed = e.of(IVE).token_shift_changed
        if changed == 0:
            return "untestable", "the rewrites changed none of the held-out pairs (nothing to rewrite in them)"
        gap, lo, hi, n = _interval(e, "token_shift_drop")
        outcome = interval_outcome(lo, hi, claimed="above")
        return outcome, said("token_shift", gap=gap, ci_low=lo, ci_high=hi, n_pairs=n, changed=changed,
                             outcome=outcome)

    return [_part("the IM-RM loses more accuracy under a token-level rewrite", e, fn)]


def _in_distribution(e: Evidence) -> list[Part]:
    def fn():
        gap, lo, hi, n = _interval(e, "in_distribution")
        outcome = interval_outcome(lo, hi, claimed="below")
        return outcome, said("in_distribution", gap=gap, ci_low=lo, ci_high=hi, n_pairs=n, outcome=outcome)

    return [_part("the IM-RM is less accurate on held-out pairs", e, fn)]


def _domain_shift(e: Evidence) -> list[Part]:
    def fn():
        domains = [s for s in e.of(IVE).sets.keys() if s.startswith("domain:")]
        low = {}  # eval_set -> the RMs below chance there, as the chapter flagged them
        for b in e.of(IVE).verdict.below_chance:
            low.setdefault(b.eval_set, []).append({"rm": b.rm, "accuracy": b.accuracy, "ci_low": b.ci_low,
                                                   "ci_high": b.ci_high})
        counts, sources = {"holds": 0, "fails": 0}, []
        for s in domains:
            gap, lo, hi, _ = _interval(e, s)
            source = {"source": s.split(":", 1)[1], "gap": gap, "ci_low": lo, "ci_high": hi,
                      "below_chance": low.get(s, [])}
            if s in low:
                sources.append({**source, "outcome": "not established"})
                continue
            outcome = equivalence_outcome(lo, hi, DOMAIN_MARGIN, better_ok=True)
            counts[outcome] = counts.get(outcome, 0) + 1
            sources.append({**source, "outcome": outcome})
        return (share_outcome(counts["holds"], len(domains), against=counts["fails"]),
                said("domain_shift", margin=DOMAIN_MARGIN, sources=sources, n_holds=counts["holds"],
                     n_sources=len(domains), n_fails=counts["fails"]))

    return [_part(f"comparable or better on each other source (margin {DOMAIN_MARGIN:g} accuracy)", e, fn)]


def _displacement(e: Evidence) -> list[Part]:
    def training():
        d = e.of(IVE).displacement
        end, change = d.logratio_chosen_end, d.margin_change
        shown = end < 0 and change > 0
        return exists_outcome(int(shown)), said("displacement_training", logratio_end=end, margin_change=change,
                                                displaced=shown)

    def heldout():
        h = e.of(IVE).heldout_logratios.where(completion="chosen")
        m, lo, hi, n = h.mean, h.ci_low, h.ci_high, h.n
        side = "below" if hi < 0 else "above" if lo > 0 else "spans"
        return exists_outcome(int(hi < 0)), said("displacement_heldout", n_pairs=n, mean=m, ci_low=lo, ci_high=hi,
                                                 side=side)

    return [_part("along DPO training", e, training, one_sided=EXISTENCE),
            _part("on held-out pairs after training", e, heldout, one_sided=EXISTENCE)]


# the four claims, after good_teachers' two of Razin et al. on the page
CLAIMS: list[Claim] = [
    Claim("im_token_shift", RAZIN, "Implicit RMs (DPO's β·log πθ/πref) generalise worse than explicit RMs (a "
          "scalar head) under token-level shifts, because they lean more on the surface tokens of a response.",
          POOR_IMPLICIT, (IVE,), _DATA, _UNIT, "paired bootstrap interval of the IM-RM's accuracy drop under "
          "the rewrite minus the EX-RM's; interval rule: holds when it lies above 0, fails when below, not "
          "established when it spans 0", _token_shift, place=3),
    Claim("im_in_distribution", RAZIN, "Implicit RMs are often less accurate than explicit RMs even in "
          "distribution.", POOR_IMPLICIT, (IVE,), _DATA, _UNIT, "paired bootstrap interval of IM − EX accuracy "
          "on held-out pairs of the training source; interval rule: holds when it lies below 0, fails when "
          "above, not established when it spans 0", _in_distribution, place=4),
    Claim("im_domain_shift", RAZIN, "Under domain shifts, implicit RMs generalise comparably to or better than "
          "explicit RMs.", POOR_IMPLICIT, (IVE,), _DATA, _UNIT + " (sources as units of the share rule)",
          "paired bootstrap interval of IM − EX accuracy per other source, with a non-inferiority margin of "
          f"{DOMAIN_MARGIN:g} accuracy ({DOMAIN_MARGIN * 100:g} points, {DOMAIN_MARGIN / 0.5:.0%} of the way "
          "from chance to perfect; chosen on what accuracy means, not on these results): a source is "
          f"comparable or better when its interval lies above −{DOMAIN_MARGIN:g}, worse when it lies below "
          f"−{DOMAIN_MARGIN:g}, otherwise not established; a source on which either RM is below chance (the "
          "chapter's flag) is not established, its labels running against training; share rule over the "
          "sources", _domain_shift, place=5),
    Claim("likelihood_displacement", RAZIN, "DPO can make the preferred response less likely while it widens "
          "the preference margin (likelihood displacement).", DISPLACEMENT, (IVE,),
          "the IM-RM's DPO run: TRL's per-step log-ratios to the reference, and held-out pairs after training",
          "one DPO run", "existence: the chosen completion ends below its reference log-prob while the margin "
          "grew (training), and its held-out interval lies below 0; otherwise not established (one run "
          "without it does not show that DPO cannot displace)", _displacement, place=6),
]
